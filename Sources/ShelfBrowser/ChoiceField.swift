internal import ShelfTerminal

/// One line with a prompt and a value chosen from a few (the item's status): the value
/// shows in brackets, and the terminal cursor sits on it while focused.
@MainActor
final class ChoiceField: View {
    var prompt: String { didSet { setNeedsDisplay() } }
    var value = "" { didSet { if value != oldValue { setNeedsDisplay() } } }
    var note = "" { didSet { if note != oldValue { setNeedsDisplay() } } }
    var isFocused = false { didSet { if isFocused != oldValue { setNeedsDisplay() } } }

    init(prompt: String) {
        self.prompt = prompt
        super.init()
        length = .fixed(1)
    }

    override func draw(in canvas: inout Canvas) {
        let x = frame.x + canvas.draw(prompt, at: frame.origin, width: frame.width)
        let shown = "‹ \(value) ›"
        let used = canvas.draw(shown, at: Point(x: x, y: frame.y), style: Theme.title, width: frame.maxX - x)
        if isFocused {
            canvas.cursor = Point(x: x + 2, y: frame.y)
            canvas.draw(
                "  " + note, at: Point(x: x + used, y: frame.y), style: Theme.hint, width: frame.maxX - x - used)
        }
    }
}
