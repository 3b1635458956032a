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
        var lines: [String] = []
        for section in viewModel.sections {
            if !lines.isEmpty { lines.append("") }
            lines.append(section.title)
            for line in section.lines {
                lines.append("  " + TextLayout.pad(line.keys, to: 16) + line.summary)
            }
        }
        lines.append("")
        lines.append("Any key closes this help.")
        let text = Label(lines.joined(separator: "\n"))
        text.length = .flexible()
        view = Dialog(title: "Keys", content: text, preferredSize: Size(width: 52, height: lines.count + 2))
    }

    public override func handle(_ event: KeyEvent) -> Bool {
        false  // every key goes to the browser, which closes the help
    }
}
