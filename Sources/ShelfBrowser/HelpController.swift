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

    /// What went wrong in this browser (its failures, newest first, and the configuration
    /// file's problems), shown whole first, wrapped to the dialog's width: a message the status
    /// bar had to cut is read here.
    private let messages: [String]

    public init(viewModel: HelpViewModel, messages: [String] = []) {
        self.viewModel = viewModel
        self.messages = messages
        super.init()
    }

    public override func loadView() {
        filterField.isFocused = true
        text.length = .flexible()
        footer.style = Theme.hint
        // The messages are wrapped to the width the dialog gets, whatever the screen's.
        let body = WidthWatcher(StackView(axis: .vertical, [filterField, text, footer])) { [weak self] width in
            guard let self, !messages.isEmpty, width != wrapWidth else { return }
            wrapWidth = width
            let offset = offset
            refilter()
            self.offset = offset
            show()
        }
        // As tall as the whole help, so the dialog keeps its size while the filter narrows it.
        let height = Self.render(viewModel.sections).count + 4 + (messages.isEmpty ? 0 : messages.count * 3 + 2)
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
        lines = messageLines() + lines
        offset = 0
        show()
    }

    /// The width the messages are wrapped to: the dialog's, once laid out.
    private var wrapWidth = maximumWidth - 2

    /// The messages that match the filter, each whole, wrapped to `wrapWidth`, under a heading.
    private func messageLines() -> [String] {
        let words = filterField.text.lowercased().split(separator: " ")
        let shown = messages.filter { message in words.allSatisfy { message.lowercased().contains($0) } }
        guard !shown.isEmpty else { return [] }
        var lines = ["Messages (the last first)"]
        for message in shown {
            let wrapped = TextLayout.wrap(Sanitizer.sanitize(message), to: max(10, wrapWidth - 2))
            lines += wrapped.enumerated().map { ($0.offset == 0 ? "• " : "  ") + $0.element }
        }
        return lines + [""]
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

/// Lays its one subview over its whole frame, first telling `onWidth` the frame's width.
@MainActor
private final class WidthWatcher: View {
    private let onWidth: @MainActor (Int) -> Void

    init(_ content: View, onWidth: @escaping @MainActor (Int) -> Void) {
        self.onWidth = onWidth
        super.init()
        addSubview(content)
    }

    override func layoutSubviews() {
        if frame.width > 0 { onWidth(frame.width) }
        super.layoutSubviews()
    }
}
