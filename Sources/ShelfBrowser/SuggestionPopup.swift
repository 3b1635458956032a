internal import ShelfTerminal

/// Completion choices in a bordered list drawn over what is below, the chosen one in
/// reverse video.
@MainActor
final class SuggestionPopup: View {
    var lines: [String] = [] { didSet { if lines != oldValue { setNeedsDisplay() } } }
    var selectedIndex = 0 { didSet { if selectedIndex != oldValue { setNeedsDisplay() } } }

    /// The height the popup needs: its lines and the border.
    var neededHeight: Int { lines.count + 2 }

    override func draw(in canvas: inout Canvas) {
        guard frame.width >= 4, frame.height >= 3 else { return }
        canvas.fill(frame)
        let inner = frame.width - 2
        canvas.draw("┌" + String(repeating: "─", count: inner) + "┐", at: frame.origin, width: frame.width)
        for (row, line) in lines.prefix(frame.height - 2).enumerated() {
            let y = frame.y + 1 + row
            canvas.draw("│", at: Point(x: frame.x, y: y), width: 1)
            canvas.draw(
                TextLayout.pad(line, to: inner), at: Point(x: frame.x + 1, y: y),
                style: row == selectedIndex ? Theme.status : .plain, width: inner)
            canvas.draw("│", at: Point(x: frame.maxX - 1, y: y), width: 1)
        }
        canvas.draw(
            "└" + String(repeating: "─", count: inner) + "┘", at: Point(x: frame.x, y: frame.maxY - 1),
            width: frame.width)
    }
}

/// A form's body: a stack of rows, and a popup placed under one of them (the anchor) once
/// the stack is laid out, drawn over the rows below.
@MainActor
final class PopupHost: View {
    let stack: StackView
    let popup = SuggestionPopup()
    /// The row the popup hangs under, and the column it starts at.
    weak var anchor: View?
    var anchorOffset = 0

    init(stack: StackView) {
        self.stack = stack
        super.init()
        addSubview(stack)
        addSubview(popup)
        popup.isHidden = true
    }

    override func layoutSubviews() {
        stack.frame = frame
        stack.layoutSubviews()  // the anchor's frame must be current to place the popup
        guard let anchor else { return }
        let x = anchor.frame.x + anchorOffset
        let height = min(popup.neededHeight, max(0, frame.maxY - anchor.frame.maxY))
        popup.frame = Rect(x: x, y: anchor.frame.maxY, width: max(0, min(frame.maxX - x, 52)), height: height)
    }
}
