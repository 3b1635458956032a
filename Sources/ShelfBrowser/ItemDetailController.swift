public import ShelfPresentation
internal import ShelfReactive
public import ShelfTerminal

/// One item in full: title, status, priority, owner, dates and notes, live.
public final class ItemDetailController: Controller {
    private let viewModel: ItemDetailViewModel

    private let titleLabel = Label("", style: Theme.title)
    private let fieldsLabel = Label()
    private let notesLabel = Label()
    private let spinner = Spinner("Loading…")
    private let messageLabel = Label()
    private let box: Box

    public init(viewModel: ItemDetailViewModel) {
        self.viewModel = viewModel
        let content = StackView(axis: .vertical)
        box = Box(title: "Item", content: content)
        super.init()
    }

    public override func loadView() {
        titleLabel.wraps = true
        titleLabel.length = .fixed(2)
        fieldsLabel.length = .fixed(6)
        notesLabel.wraps = true
        notesLabel.length = .flexible()
        messageLabel.wraps = true
        messageLabel.length = .flexible()
        for view in [titleLabel, fieldsLabel, notesLabel, spinner, messageLabel] {
            box.content.addSubview(view)
        }
        view = box
    }

    public override func viewDidLoad() {
        viewModel.state.bind(during: lifetime) { [weak self] state in self?.render(state) }
        viewModel.load()
    }

    private func render(_ state: ViewState<ItemDetailContent>) {
        for view in [titleLabel, fieldsLabel, notesLabel, spinner, messageLabel] { view.isHidden = true }
        switch state {
        case .idle:
            break
        case .loading:
            spinner.isHidden = false
        case .loaded(let item):
            titleLabel.isHidden = false
            fieldsLabel.isHidden = false
            notesLabel.isHidden = false
            box.title = "Item \(item.id)"
            titleLabel.text = item.title
            fieldsLabel.text = [
                "Status    \(item.status)", "Priority  \(item.priority)",
                "Owner     \(item.ownerName)\(item.ownerEmail.isEmpty ? "" : " <\(item.ownerEmail)>")",
                "Created   \(item.created)", "Updated   \(item.updated)", "",
            ].joined(separator: "\n")
            notesLabel.text = item.notes ?? "No notes."
            notesLabel.style = item.notes == nil ? Theme.hint : .plain
        case .empty(let message):
            messageLabel.isHidden = false
            messageLabel.text = message
            messageLabel.style = Theme.hint
        case .failed(let failure):
            messageLabel.isHidden = false
            messageLabel.text = failure.message + "\nPress r to try again."
            messageLabel.style = Theme.error
        }
        view.setNeedsDisplay()
    }

    public override func handle(_ event: KeyEvent) -> Bool {
        if KeyBindings.action(for: event) == .retry, viewModel.state.value.failure != nil {
            viewModel.retry()
            return true
        }
        return false
    }
}

/// Asks a yes-or-no question in a dialog: y or Enter confirms, n or Esc cancels.
public final class ConfirmController: Controller {
    private let viewModel: ConfirmViewModel

    public init(viewModel: ConfirmViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        let message = Label(viewModel.message)
        message.wraps = true
        message.length = .flexible()
        let choices = Label("y / Enter: \(viewModel.confirmLabel)    n / Esc: cancel", style: Theme.hint)
        let width = min(70, max(40, DisplayWidth.of(viewModel.message) + 4))
        view = Dialog(
            title: viewModel.title, content: StackView(axis: .vertical, [message, choices]),
            preferredSize: Size(width: width, height: 6))
    }

    public override func handle(_ event: KeyEvent) -> Bool {
        switch event {
        case .character("y"), .character("Y"), KeyEvent(.enter): viewModel.confirm()
        case .character("n"), .character("N"), KeyEvent(.escape), .character("q"): viewModel.cancel()
        default: break
        }
        return true  // modal: no key reaches the list behind it
    }
}

/// The keys, generated from `KeyBindings.table`.
public struct HelpViewModel: Sendable {
    /// One line per binding, grouped in sections.
    public let sections: [(title: String, lines: [(keys: String, summary: String)])]

    public init(bindings: [KeyBinding] = KeyBindings.table) {
        var sections: [(title: String, lines: [(keys: String, summary: String)])] = []
        for binding in bindings {
            let line = (binding.keys.map(\.description).joined(separator: " "), binding.summary)
            if let index = sections.firstIndex(where: { $0.title == binding.section }) {
                sections[index].lines.append(line)
            } else {
                sections.append((binding.section, [line]))
            }
        }
        self.sections = sections
    }
}

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
