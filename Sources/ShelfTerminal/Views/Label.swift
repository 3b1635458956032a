/// Text in a style: one line per "\n", or word-wrapped to the frame when `wraps` is set.
/// Lines that do not fit are cut with an ellipsis; text is sanitized when drawn.
@MainActor
public final class Label: View {
    /// The text shown; "\n" starts a new line. Setting a different value redraws.
    public var text: String { didSet { if text != oldValue { setNeedsDisplay() } } }
    /// The style every cell of the text is drawn in. Setting a different value redraws.
    public var style: Style { didSet { if style != oldValue { setNeedsDisplay() } } }
    /// How each line sits in the frame's width. Does not redraw by itself: set it before the
    /// label is shown, or call `setNeedsDisplay()`.
    public var alignment: TextLayout.Alignment = .leading
    /// Wrap long lines at word boundaries instead of cutting them.
    public var wraps = false

    /// Creates a label one line high (`length` is `.fixed(1)`); set `length` for more lines.
    public init(_ text: String = "", style: Style = .plain) {
        self.text = text
        self.style = style
        super.init()
        length = .fixed(1)
    }

    /// Draws the text's lines from the top of the frame, as many as fit, each sanitized, padded
    /// to the frame's width by `alignment` and cut with an ellipsis when too wide.
    ///
    /// Only the lines that fit are laid out: a label holding megabytes of text (an item's
    /// notes) costs what it shows.
    public override func draw(in canvas: inout Canvas) {
        let lines =
            wraps
            ? TextLayout.wrap(text, to: frame.width, maxLines: frame.height)
            : text.split(separator: "\n", maxSplits: max(0, frame.height), omittingEmptySubsequences: false)
                .prefix(frame.height).map(String.init)
        for (row, line) in lines.prefix(frame.height).enumerated() {
            let padded = TextLayout.pad(Sanitizer.sanitize(line), to: frame.width, alignment: alignment)
            canvas.draw(padded, at: Point(x: frame.x, y: frame.y + row), style: style, width: frame.width)
        }
    }
}

extension TextLayout {
    /// `text` broken into lines of at most `width` columns, at spaces where possible;
    /// "\n" always breaks. A word longer than the width is split. Stops after `maxLines`
    /// lines, looking at no more of `text` than the paragraphs they come from.
    public static func wrap(_ text: String, to width: Int, maxLines: Int = .max) -> [String] {
        guard width > 0, maxLines > 0 else { return [] }
        var lines: [String] = []
        var rest = Substring(text)
        var more = true
        while more, lines.count < maxLines {
            let end = rest.firstIndex(of: "\n") ?? rest.endIndex
            let paragraph = rest[..<end]
            if end < rest.endIndex { rest = rest[rest.index(after: end)...] } else { more = false }
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                if lines.count >= maxLines { break }
                var word = Substring(word)
                var wordWidth = DisplayWidth.of(word)
                let gap = line.isEmpty ? 0 : 1
                if lineWidth + gap + wordWidth <= width {
                    if gap == 1 { line += " " }
                    line += word
                    lineWidth += gap + wordWidth
                    continue
                }
                if !line.isEmpty {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                // Split words wider than a line.
                while wordWidth > width, lines.count < maxLines {
                    var piece = ""
                    var pieceWidth = 0
                    while let next = word.first, pieceWidth + DisplayWidth.of(next) <= width {
                        piece.append(next)
                        pieceWidth += DisplayWidth.of(next)
                        word = word.dropFirst()
                    }
                    if piece.isEmpty { word = word.dropFirst() }  // a character wider than the line
                    lines.append(piece)
                    wordWidth = DisplayWidth.of(word)
                }
                line = String(word)
                lineWidth = wordWidth
            }
            lines.append(line)
        }
        return Array(lines.prefix(maxLines))
    }
}
