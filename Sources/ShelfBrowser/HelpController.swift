internal import ShelfPresentation
internal import ShelfReactive
public import ShelfTerminal

/// Shows the key table in a dialog; any key closes it.
public final class HelpController: Controller {
    private let viewModel: HelpViewModel

    public init(viewModel: HelpViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        let blocks = viewModel.sections.map { section in
            [section.title] + section.lines.map { "  " + TextLayout.pad($0.keys, to: Self.keyWidth) + $0.summary }
        }
        // One column while the keys fit a screen of 24 rows; past that, two columns of whole
        // sections, the first holding about half the lines.
        let total = blocks.reduce(0) { $0 + $1.count + 1 }
        var left: [String] = []
        var right: [String] = []
        for block in blocks {
            let two = total > 20
            if !two || left.count + block.count / 2 < total / 2 {
                left += (left.isEmpty ? [] : [""]) + block
            } else {
                right += (right.isEmpty ? [] : [""]) + block
            }
        }
        let leftWidth = left.map(DisplayWidth.of).max() ?? 0
        var lines: [String] = []
        for index in 0..<max(left.count, right.count) {
            let first = index < left.count ? left[index] : ""
            let second = index < right.count ? right[index] : ""
            lines.append(second.isEmpty ? first : TextLayout.pad(first, to: leftWidth + 3) + second)
        }
        lines.append("")
        lines.append("Any key closes this help.")
        let width = (lines.map(DisplayWidth.of).max() ?? 40) + 4
        let text = Label(lines.joined(separator: "\n"))
        text.length = .flexible()
        view = Dialog(title: "Keys", content: text, preferredSize: Size(width: width, height: lines.count + 2))
    }

    /// Room for the widest keys ("PgDn Ctrl-F") and a space.
    private static let keyWidth = 13

    public override func handle(_ event: KeyEvent) -> Bool {
        false  // every key goes to the browser, which closes the help
    }
}
