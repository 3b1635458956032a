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
        // Two columns of whole sections, split where the taller column is shortest.
        var split = blocks.count
        var best = Int.max
        for candidate in 0...blocks.count {
            let height = max(Self.height(of: blocks[..<candidate]), Self.height(of: blocks[candidate...]))
            if height < best {
                best = height
                split = candidate
            }
        }
        let left = Array(blocks[..<split].joined(separator: [""]))
        let right = Array(blocks[split...].joined(separator: [""]))
        let leftWidth = left.map(DisplayWidth.of).max() ?? 0
        for index in 0..<max(left.count, right.count) {
            let first = index < left.count ? left[index] : ""
            let second = index < right.count ? right[index] : ""
            lines.append(second.isEmpty ? first : TextLayout.pad(first, to: leftWidth + 3) + second)
        }
        lines.append("")
        lines.append("j/k ↓/↑ scroll when it does not fit; any other key closes this help.")
        let width = (lines.map(DisplayWidth.of).max() ?? 40) + 4
        text.text = lines.joined(separator: "\n")
        text.length = .flexible()
        view = Dialog(title: "Keys", content: text, preferredSize: Size(width: width, height: lines.count + 2))
    }

    private let text = Label("")
    private var lines: [String] = []
    /// The first line shown, when the help is taller than the screen.
    private var offset = 0

    private static func height(of blocks: ArraySlice<[String]>) -> Int {
        blocks.reduce(0) { $0 + $1.count } + max(0, blocks.count - 1)
    }

    private static let keyWidth = 13

    public override func handle(_ event: KeyEvent) -> Bool {
        // Scroll keys scroll while the help is taller than its box; every other key goes to
        // the browser, which closes the help.
        let visible = max(1, text.frame.size.height)
        let last = max(0, lines.count - visible)
        guard last > 0 else { return false }
        switch event {
        case .character("j"), KeyEvent(.down): offset = min(last, offset + 1)
        case .character("k"), KeyEvent(.up): offset = max(0, offset - 1)
        case KeyEvent(.pageDown), .character(" "): offset = min(last, offset + visible)
        case KeyEvent(.pageUp): offset = max(0, offset - visible)
        default: return false
        }
        text.text = lines[offset...].joined(separator: "\n")
        return true
    }
}
