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
    /// The most lines given to the label at once: more than any screen shows.
    private static let linesJoined = 1000

    /// What went wrong in this browser, shown whole first, wrapped to the dialog's width: a
    /// message the status bar had to cut is read here. Its failures newest first, then the
    /// configuration file's problems in the order of its lines, each under its own heading
    /// (hostile round 11: both were under "the last first", the problems in the file's order).
    private let groups: [MessageGroup]
    private var messageCount: Int { groups.reduce(0) { $0 + $1.messages.count } }

    /// The help for `viewModel`, with this session's `messages` (newest first) and the
    /// configuration file's `problems` (in the order of its lines) above the keys.
    public init(viewModel: HelpViewModel, messages: [String] = [], problems: [String] = []) {
        self.viewModel = viewModel
        groups = [
            MessageGroup(title: "Messages (the last first)", messages: messages),
            MessageGroup(title: "The configuration file (in the order of its lines)", messages: problems),
        ].filter { !$0.messages.isEmpty }
        super.init()
    }

    public override func loadView() {
        filterField.isFocused = true
        text.length = .flexible()
        footer.style = Theme.hint
        // The messages are wrapped to the width the dialog gets, whatever the screen's.
        let body = WidthWatcher(StackView(axis: .vertical, [filterField, text, footer])) { [weak self] width in
            guard let self, !groups.isEmpty, width != wrapWidth else { return }
            wrapWidth = width
            let offset = offset
            refilter()
            self.offset = offset
            show()
        }
        // As tall as the whole help, so the dialog keeps its size while the filter narrows it.
        let height =
            Self.render(viewModel.sections).count + 4 + (groups.isEmpty ? 0 : messageCount * 3 + 2 * groups.count)
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

    /// The messages that match the filter, each whole, wrapped to `wrapWidth`, under their
    /// group's heading. Each message is wrapped once per width and lowered once: typing in
    /// the filter of a help with 70,643 problems took 11 s a key (hostile round 11).
    private func messageLines() -> [String] {
        let words = filterField.text.lowercased().split(separator: " ")
        var lines: [String] = []
        for group in groups {
            let shown = group.messages.indices.filter { index in
                words.isEmpty || words.allSatisfy { group.lowered[index].contains($0) }
            }
            guard !shown.isEmpty else { continue }
            lines.append(group.title)
            for index in shown { lines += group.wrapped(index, to: max(10, wrapWidth - 2)) }
            lines.append("")
        }
        return lines
    }

    private func show() {
        let visible = max(1, text.frame.size.height)
        offset = max(0, min(offset, lines.count - visible))
        // The lines that can be in sight only (the label shows no more; before the first
        // layout its height is not known): joining every line again cost each key the whole.
        text.text = lines[offset..<min(lines.count, offset + max(visible, Self.linesJoined))].joined(separator: "\n")
        footer.text = Self.footer(keys: Theme.keyNames, filtering: !filterField.text.isEmpty)
        view.setNeedsDisplay()
    }

    /// The help's foot, naming the keys as `keys` does (hostile round 12: "↓/↑ PgDn/PgUp"
    /// stayed once the file rebound them): "↓/↑ PgDn/PgUp scroll · Esc closes", or "… clears
    /// the filter" while `filtering`.
    static func footer(keys: KeyNames, filtering: Bool) -> String {
        let close = keys("help.close", "Esc")
        let scroll =
            "\(keys("help.scrollDown", "↓"))/\(keys("help.scrollUp", "↑")) "
            + "\(keys("help.pageDown", "PgDn"))/\(keys("help.pageUp", "PgUp")) scroll"
        return "\(scroll) · " + (filtering ? "\(close) clears the filter" : "\(close) closes")
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

/// Messages under one heading of the help, each lowered once for the filter and wrapped once
/// per width.
@MainActor
private final class MessageGroup {
    let title: String
    let messages: [String]
    /// Each message lower-cased, for the filter.
    let lowered: [String]
    /// Each message's lines at `wrappedWidth`, as the help shows them ("• " then "  ").
    private var wrappedLines: [[String]?]
    private var wrappedWidth = 0

    init(title: String, messages: [String]) {
        self.title = title
        self.messages = messages
        lowered = messages.map { $0.lowercased() }
        wrappedLines = Array(repeating: nil, count: messages.count)
    }

    /// Message `index`'s lines at `width`.
    func wrapped(_ index: Int, to width: Int) -> [String] {
        if width != wrappedWidth {
            wrappedWidth = width
            wrappedLines = Array(repeating: nil, count: messages.count)
        }
        if let lines = wrappedLines[index] { return lines }
        let lines = TextLayout.wrap(Sanitizer.sanitize(messages[index]), to: width).enumerated().map {
            ($0.offset == 0 ? "• " : "  ") + $0.element
        }
        wrappedLines[index] = lines
        return lines
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
