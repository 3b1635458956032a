public import ShelfPresentation
internal import ShelfReactive
public import ShelfStore
public import ShelfTerminal

/// The saved views in a dialog, live: ↑/↓ (or j/k) select, Enter opens the selected view,
/// d deletes it (after asking: y or Enter deletes, n or Esc keeps it), Esc closes.
///
/// Opening is the browser's business: it sets `onOpen`, and closes the picker on Esc.
public final class SavedViewPickerController: Controller, KeyModeReporting {
    private let viewModel: SavedViewListViewModel

    private let listView = ListView()
    private let messageLabel = Label()
    private let hintLabel = HintLine(style: Theme.hint)
    private lazy var dataSource = ListDataSource<SavedView.ID, SavedViewRowCell>(
        listView: listView, cell: SavedViewRowCell.self)
    /// The view whose deletion is being asked about.
    private var deleting: SavedViewRowViewModel?

    /// Called with the view to open when Enter is pressed on it.
    public var onOpen: ((SavedView) -> Void)?

    public init(viewModel: SavedViewListViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        listView.columns = [
            ListColumn("Name", width: .minimum(12), priority: 10),
            ListColumn("Sort", width: .fixed(24), priority: 6),
            ListColumn("Query", width: .minimum(10), priority: 8),
        ]
        listView.length = .flexible()
        messageLabel.wraps = true
        messageLabel.length = .fixed(2)
        hintLabel.length = .fixed(1)
        let body = View()
        body.length = .flexible()
        body.addSubview(listView)
        body.addSubview(messageLabel)
        view = Dialog(
            title: "Saved views", content: StackView(axis: .vertical, [body, hintLabel]),
            preferredSize: Size(width: 80, height: 16))
    }

    public override func viewDidLoad() {
        viewModel.state.bind(during: lifetime) { [weak self] state in self?.render(state) }
        viewModel.load()
    }

    private func render(_ state: ViewState<SavedViewListContent>) {
        listView.isHidden = true
        messageLabel.isHidden = true
        messageLabel.style = .plain
        hintLabel.lead = ""
        hintLabel.separator = " · "
        hintLabel.hints = SavedViewListViewModel.hintList(keys: Theme.keyNames)
        switch state {
        case .idle, .loading:
            messageLabel.isHidden = false
            messageLabel.text = SavedViewListViewModel.loadingText
        case .loaded(let content):
            listView.isHidden = false
            var snapshot = ListSnapshot<SavedView.ID>()
            snapshot.append(content.rows.map(\.id))
            dataSource.apply(
                snapshot, rows: Dictionary(content.rows.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }))
            if let index = content.selectedIndex { dataSource.select(content.rows[index].id) }
            if let message = content.message { (hintLabel.lead, hintLabel.hints) = (message, []) }
            if let deleting, !content.rows.contains(where: { $0.id == deleting.id }) {
                self.deleting = nil  // deleted meanwhile, here or elsewhere
            }
        case .empty(let message):
            messageLabel.isHidden = false
            messageLabel.text = message
            hintLabel.hints = [KeyHint(SavedViewListViewModel.closeHint(keys: Theme.keyNames), rank: 1)]
            deleting = nil
        case .failed(let failure):
            messageLabel.isHidden = false
            messageLabel.text = failure.message
            messageLabel.style = Theme.error
            hintLabel.hints = [KeyHint(SavedViewListViewModel.closeHint(keys: Theme.keyNames), rank: 1)]
        }
        if let deleting {
            // The question cut before its keys: a long name never hides how to answer.
            hintLabel.lead = SavedViewListViewModel.deleteQuestionLead(deleting)
            hintLabel.separator = SavedViewListViewModel.deleteHintSeparator
            hintLabel.hints = SavedViewListViewModel.deleteHints(keys: Theme.keyNames)
        }
        view.setNeedsDisplay()
    }

    /// The question's keys while it asks whether to delete a view, else the list's.
    var keyModes: [KeyMode] { deleting == nil ? [.views] : [.confirm] }

    public override func handle(_ event: KeyEvent) -> Bool {
        if let deleting {
            switch event {
            case .character("y"), .character("Y"), KeyEvent(.enter):
                self.deleting = nil
                viewModel.delete(id: deleting.id)
            case .character("n"), .character("N"), KeyEvent(.escape), .character("q"):
                self.deleting = nil
            default: return true
            }
            render(viewModel.state.value)
            return true
        }
        switch event {
        case .character("j"), KeyEvent(.down): viewModel.moveSelection(by: 1)
        case .character("k"), KeyEvent(.up): viewModel.moveSelection(by: -1)
        case KeyEvent(.pageDown): viewModel.moveSelection(by: max(1, listView.visibleRowCount - 1))
        case KeyEvent(.pageUp): viewModel.moveSelection(by: -max(1, listView.visibleRowCount - 1))
        case KeyEvent(.enter):
            if let view = viewModel.selectedView { onOpen?(view) }
        case .character("d"), KeyEvent(.delete):
            guard let content = viewModel.state.value.value, let index = content.selectedIndex else { return true }
            deleting = content.rows[index]
            render(viewModel.state.value)
        case KeyEvent(.escape), .control("c"):
            return false  // the browser closes the picker
        default: break
        }
        return true  // modal: no key reaches the list behind it
    }
}

/// One saved view: name, sort, query.
final class SavedViewRowCell: ListCell {
    private var row: SavedViewRowViewModel?

    init() {}

    func configure(with row: SavedViewRowViewModel) { self.row = row }

    func draw(in canvas: inout Canvas, frame: Rect, columns: [ColumnFrame], isSelected: Bool) {
        guard let row else { return }
        for column in columns {
            let point = Point(x: column.x, y: frame.y)
            switch column.index {
            case 0: canvas.draw(row.name, at: point, style: Theme.title, width: column.width)
            case 1: canvas.draw(row.sort, at: point, style: Theme.date, width: column.width)
            default: canvas.draw(row.query, at: point, style: .plain, width: column.width)
            }
        }
    }
}
