public import ShelfPresentation
internal import ShelfReactive
public import ShelfTerminal

/// One item: title, status, priority, owner, dates and notes (a bounded preview of long
/// notes, or all of them when its view model was made so), live.
public final class ItemDetailController: Controller {
    let viewModel: ItemDetailViewModel

    private let titleLabel = Label("", style: Theme.title)
    private let fieldsLabel = Label()
    private let notesLabel = Label()
    /// Under the notes, at the pane's foot: how much of long notes the preview leaves out.
    private let notesMarkerLabel = Label("", style: Theme.hint)
    private let spinner = Spinner("Loading…")
    private let messageLabel = Label()
    private let box: Box

    public init(viewModel: ItemDetailViewModel) {
        self.viewModel = viewModel
        let content = StackView(axis: .vertical)
        box = Box(title: "Item", content: content)
        super.init()
        viewModel.keys = Theme.keyNames
    }

    public override func loadView() {
        titleLabel.wraps = true
        titleLabel.length = .fixed(2)
        fieldsLabel.length = .fixed(6)
        notesLabel.wraps = true
        notesLabel.length = .flexible()
        notesMarkerLabel.length = .fixed(1)
        messageLabel.wraps = true
        messageLabel.length = .flexible()
        for view in [titleLabel, fieldsLabel, notesLabel, notesMarkerLabel, spinner, messageLabel] {
            box.content.addSubview(view)
        }
        view = box
    }

    public override func viewDidLoad() {
        viewModel.state.bind(during: lifetime) { [weak self] state in self?.render(state) }
        viewModel.load()
    }

    private func render(_ state: ViewState<ItemDetailContent>) {
        for view in [titleLabel, fieldsLabel, notesLabel, notesMarkerLabel, spinner, messageLabel] {
            view.isHidden = true
        }
        switch state {
        case .idle:
            break
        case .loading:
            spinner.isHidden = false
        case .loaded(let item):
            titleLabel.isHidden = false
            fieldsLabel.isHidden = false
            notesLabel.isHidden = false
            box.title = item.heading
            titleLabel.text = item.title
            fieldsLabel.text = (item.fieldLines + [""]).joined(separator: "\n")
            notesLabel.text = item.notesText
            let marker = item.notesMarker(keys: viewModel.keys)
            notesMarkerLabel.text = marker ?? ""
            notesMarkerLabel.isHidden = marker == nil
            notesLabel.style = item.hasNotes ? .plain : Theme.hint
        case .empty(let message):
            messageLabel.isHidden = false
            messageLabel.text = message
            messageLabel.style = Theme.hint
        case .failed(let failure):
            messageLabel.isHidden = false
            messageLabel.text = [failure.message, viewModel.hint].compactMap { $0 }.joined(separator: "\n")
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
