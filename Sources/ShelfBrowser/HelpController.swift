internal import ShelfPresentation
internal import ShelfReactive
public import ShelfTerminal

/// Shows every mode's keys in a dialog that fits 80 columns; typing filters them (as lazygit's
/// does), ↓/↑ and PgDn/PgUp scroll, Esc clears the filter and then closes.
public final class HelpController: Controller, KeyModeReporting {
    private let viewModel: HelpViewModel
    private let filterField = TextField(prompt: "Filter: ", placeholder: "type to find a key or an action")
    private let text = Label("")
    private let footer = Label("")
    private var lines: [String] = []
    /// The first line shown, when the help is taller than its box.
    private var offset = 0

    /// The width of the keys' column.
    private static let keyWidth = 15
    /// The widest the dialog gets: it fits an 80-column terminal with a cell to spare each side.
    static let maximumWidth = 78

    var keyModes: [KeyMode] { [.help] }

    public init(viewModel: HelpViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        filterField.isFocused = true
        text.length = .flexible()
        footer.style = Theme.hint
        let body = StackView(axis: .vertical, [filterField, text, footer])
        // As tall as the whole help, so the dialog keeps its size while the filter narrows it.
        let height = Self.render(viewModel.sections).count + 4
        view = Dialog(title: "Keys", content: body, preferredSize: Size(width: Self.maximumWidth, height: height))
        refilter()
    }

    /// The help's lines for `sections`: a heading, then one line per key.
    private static func render(_ sections: [HelpViewModel.Section]) -> [String] {
        var lines: [String] = []
        for section in sections {
            if !lines.isEmpty { lines.append("") }
            lines.append(section.title)
            for line in section.lines {
                let keys =
                    DisplayWidth.of(line.keys) < keyWidth ? TextLayout.pad(line.keys, to: keyWidth) : line.keys + "  "
                lines.append("  " + keys + line.summary)
            }
        }
        return lines
    }

    private func refilter() {
        lines = Self.render(viewModel.sections(matching: filterField.text))
        if lines.isEmpty { lines = ["No key matches “\(filterField.text)”."] }
        offset = 0
        show()
    }

    private func show() {
        let visible = max(1, text.frame.size.height)
        offset = max(0, min(offset, lines.count - visible))
        text.text = lines[offset...].joined(separator: "\n")
        let close = Theme.keyNames("help.close", "Esc")
        footer.text =
            "↓/↑ PgDn/PgUp scroll · " + (filterField.text.isEmpty ? "\(close) closes" : "\(close) clears the filter")
        view.setNeedsDisplay()
    }

    public override func handle(_ event: KeyEvent) -> Bool {
        let visible = max(1, text.frame.size.height)
        switch event {
        case KeyEvent(.down): offset += 1
        case KeyEvent(.up): offset -= 1
        case KeyEvent(.pageDown): offset += visible
        case KeyEvent(.pageUp): offset -= visible
        case KeyEvent(.escape):
            guard !filterField.text.isEmpty else { return false }  // the browser closes the help
            filterField.setText("")
            refilter()
            return true
        case .control("c"): return false
        default:
            let before = filterField.text
            _ = filterField.handle(event)
            if filterField.text != before { refilter() }
            return true
        }
        show()
        return true
    }

    public override func handlePaste(_ text: String) -> Bool {
        filterField.paste(text)
        refilter()
        return true
    }
}
