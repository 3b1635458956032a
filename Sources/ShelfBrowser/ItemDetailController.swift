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
