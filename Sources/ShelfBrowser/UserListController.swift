public import ShelfPresentation
internal import ShelfReactive
public import ShelfStore
public import ShelfTerminal

/// The users view: every user with their item counts, live, sorted by name.
///
/// Keys: j/k or ↓/↑ move; a adds a user; e (or r) edits the selected user's name and
/// email; d or Delete removes them after a question naming how many items go with them;
/// Enter shows their items (the browser filters the list by owner); Esc or q goes back.
public final class UserListController: Controller, KeyModeReporting {
    private let viewModel: UserListViewModel
    /// Called with the user whose items to show (Enter).
    public var onShowItems: (@MainActor (User.ID) -> Void)?
    /// Called when the view is done (Esc, q).
    public var onClose: (@MainActor () -> Void)?
    /// Called with each failure the user form shows (a save refused).
    public var onFailure: (@MainActor (String) -> Void)?

    private let listView = ListView()
    private let messageLabel = Label()
    private let hintLabel = HintLine(style: Theme.hint)
    private lazy var dataSource = ListDataSource<User.ID, UserRowCell>(listView: listView, cell: UserRowCell.self)
    private var form: Controller?
    private var formObservation: Observation?

    public init(viewModel: UserListViewModel) {
        self.viewModel = viewModel
        viewModel.keys = Theme.keyNames
        super.init()
    }

    public override func loadView() {
        listView.columns = [
            ListColumn("Name", width: .minimum(12), priority: 10),
            ListColumn("Email", width: .minimum(16), priority: 8),
            ListColumn("Items", width: .fixed(12), alignment: .trailing, priority: 6),
            ListColumn("Open", width: .fixed(10), alignment: .trailing, priority: 4),
        ]
        messageLabel.wraps = true
        messageLabel.length = .fixed(2)
        hintLabel.hints = UserListViewModel.hintList(keys: Theme.keyNames)
        let body = StackView(axis: .vertical, [listView, messageLabel, hintLabel])
        // Forms open over the dialog, centred on the whole screen.
        let root = View()
        root.addSubview(Dialog(title: "Users", content: body, preferredSize: Size(width: 96, height: 40)))
        view = root
    }

    public override func viewDidLoad() {
        viewModel.state.bind(during: lifetime) { [weak self] _ in self?.render() }
        viewModel.selection.bind(during: lifetime) { [weak self] _ in self?.render() }
        viewModel.message.bind(during: lifetime) { [weak self] _ in self?.render() }
        viewModel.load()
    }

    private func render() {
        let state = viewModel.state.value
        listView.isHidden = state.value == nil
        messageLabel.style = .plain
        messageLabel.text = viewModel.messageText
        switch state {
        case .idle, .loading, .empty:
            break
        case .loaded(let rows):
            var snapshot = ListSnapshot<User.ID>()
            snapshot.append(rows.map(\.id))
            dataSource.apply(snapshot, rows: Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }))
            if let id = viewModel.selection.value { dataSource.select(id) }
            messageLabel.style = viewModel.message.value == nil ? .plain : Theme.error
        case .failed:
            messageLabel.style = Theme.error
        }
        view.setNeedsDisplay()
    }

    // MARK: - Forms and questions

    private func present(_ controller: Controller) {
        dismissForm()
        addChild(controller)
        view.addSubview(controller.view)
        controller.didMove(toParent: self)
        form = controller
        focusedChild = controller
    }

    private func dismissForm() {
        formObservation?.cancel()
        formObservation = nil
        guard let form else { return }
        form.willMove(toParent: nil)
        form.view.removeFromSuperview()
        form.removeFromParent()
        self.form = nil
        focusedChild = nil
    }

    private func presentEditor(_ editor: UserEditorViewModel) {
        let form = UserEditorController(viewModel: editor)
        form.onFailure = { [weak self] text in self?.onFailure?(text) }
        present(form)
        formObservation = editor.state.bind(during: lifetime) { [weak self] content in
            guard case .saved(let id) = content.phase, let self else { return }
            dismissForm()
            viewModel.select(id: id)
        }
    }

    private func confirmRemoval(of id: User.ID) {
        guard let confirmation = viewModel.makeRemoveConfirmation(id: id) else { return }
        present(ConfirmController(viewModel: confirmation))
        formObservation = confirmation.decision.bind(during: lifetime) { [weak self] decision in
            guard let decision, let self else { return }
            dismissForm()
            if decision { viewModel.remove(id: id) }
        }
    }

    // MARK: - Keys

    var keyModes: [KeyMode] { [.users] }

    public override func handle(_ event: KeyEvent) -> Bool {
        if form != nil {
            // Keys the form passed on: Esc and Ctrl-C close it.
            if event == KeyEvent(.escape) || event == .control("c") { dismissForm() }
            return true
        }
        let selected = viewModel.selectedRow?.id
        switch event {
        case .character("j"), KeyEvent(.down): viewModel.moveSelection(by: 1)
        case .character("k"), KeyEvent(.up): viewModel.moveSelection(by: -1)
        case KeyEvent(.pageDown): viewModel.moveSelection(by: max(1, listView.visibleRowCount - 1))
        case KeyEvent(.pageUp): viewModel.moveSelection(by: -max(1, listView.visibleRowCount - 1))
        case .character("g"), KeyEvent(.home): viewModel.moveSelection(by: -Int(Int32.max))
        case .character("G"), KeyEvent(.end): viewModel.moveSelection(by: Int(Int32.max))
        case .character("a"), .character("n"): presentEditor(viewModel.makeAddEditor())
        case .character("e"), .character("r"):
            guard let selected, let editor = viewModel.makeEditor(id: selected) else { return true }
            presentEditor(editor)
        case .character("d"), KeyEvent(.delete):
            guard let selected else { return true }
            confirmRemoval(of: selected)
        case KeyEvent(.enter):
            guard let selected else { return true }
            onShowItems?(selected)
        case KeyEvent(.escape), .character("q"), .character("U"):
            onClose?()
        case .control("c"):
            return false
        default:
            break
        }
        return true  // modal: keys never reach the list behind it
    }

    public override func handleMouse(_ event: MouseEvent) -> Bool {
        guard form == nil else { return true }
        switch event.action {
        case .wheelDown: viewModel.moveSelection(by: 3)
        case .wheelUp: viewModel.moveSelection(by: -3)
        case .press(button: 0):
            if let index = listView.rowIndex(at: event.position), index < dataSource.snapshot.count {
                viewModel.select(id: dataSource.snapshot.ids[index])
            }
        default: break
        }
        return true
    }
}

/// One user row: name, email, item count, open count.
final class UserRowCell: ListCell {
    private var row: UserRowViewModel?

    init() {}

    func configure(with row: UserRowViewModel) { self.row = row }

    func draw(in canvas: inout Canvas, frame: Rect, columns: [ColumnFrame], isSelected: Bool) {
        guard let row else { return }
        for column in columns {
            let point = Point(x: column.x, y: frame.y)
            switch column.index {
            case 0: canvas.draw(row.name, at: point, width: column.width)
            case 1: canvas.draw(row.email, at: point, style: Theme.owner, width: column.width)
            case 2:
                canvas.draw(
                    TextLayout.pad(row.items, to: column.width, alignment: .trailing), at: point, width: column.width)
            default:
                canvas.draw(
                    TextLayout.pad(row.open, to: column.width, alignment: .trailing), at: point, style: Theme.date,
                    width: column.width)
            }
        }
    }
}
