public import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
public import ShelfTerminal

/// The item list: a search field, the rows, and what shows instead of them while loading,
/// when nothing matches or when reading failed.
///
/// Handles moving, searching, filtering, sorting and marking done; every other key goes up
/// to the browser.
public final class ItemListController: Controller {
    private let viewModel: ItemListViewModel

    private let searchField = TextField(prompt: "/", placeholder: "search (press /)")
    private let listView = ListView()
    private let spinner = Spinner("Loading items…")
    private let messageLabel = Label()
    private let hintLabel = Label("", style: Theme.hint)
    private lazy var dataSource = ListDataSource<Item.ID, ItemRowCell>(listView: listView, cell: ItemRowCell.self)
    private var content: ItemListContent?
    /// Whether an item carries the browser's mark; call `marksDidChange(anyMarked:)` when marks change.
    var isMarked: (Item.ID) -> Bool = { _ in false }
    /// True while the mark column shows (only while something is marked).
    private var showsMarks = false

    private static let statuses: [Item.Status?] = [nil, .open, .done]
    private static let sorts: [(ItemQuery.SortField, ItemQuery.SortDirection)] = [
        (.created, .descending), (.updated, .descending), (.priority, .descending), (.title, .ascending),
        (.created, .ascending),
    ]

    public init(viewModel: ItemListViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        listView.columns = [
            ListColumn("", width: .fixed(1), priority: 8),
            ListColumn("Pri", width: .fixed(3), priority: 6),
            ListColumn("Title", width: .minimum(12), priority: 10),
            ListColumn("Owner", width: .fixed(16), priority: 4),
            ListColumn("Updated", width: .fixed(11), alignment: .trailing, priority: 2),
        ]
        messageLabel.wraps = true
        messageLabel.length = .flexible()
        hintLabel.wraps = true
        hintLabel.length = .fixed(2)
        let placeholder = StackView(axis: .vertical, [spinner, messageLabel, hintLabel])
        let body = View()
        body.addSubview(listView)
        body.addSubview(placeholder)
        body.length = .flexible()
        view = StackView(axis: .vertical, [searchField, body])
    }

    public override func viewDidLoad() {
        searchField.onChange = { [viewModel] text in viewModel.search(text) }
        viewModel.state.bind(during: lifetime) { [weak self] state in self?.render(state) }
    }

    // MARK: - Rendering

    /// Hides everything, then shows what the state says.
    private func render(_ state: ViewState<ItemListContent>) {
        listView.isHidden = true
        spinner.isHidden = true
        messageLabel.isHidden = true
        hintLabel.isHidden = true
        content = state.value
        switch state {
        case .idle:
            break
        case .loading:
            spinner.isHidden = false
        case .loaded(let content):
            listView.isHidden = false
            show(content)
        case .empty(let message):
            messageLabel.isHidden = false
            hintLabel.isHidden = false
            messageLabel.text = message
            messageLabel.style = .plain
            hintLabel.text =
                viewModel.hasFilters
                ? "Press Esc to clear the search and filters."
                : "Press n to add an item, or fill a demo: shelf demo --items 1000"
        case .failed(let failure):
            messageLabel.isHidden = false
            hintLabel.isHidden = false
            messageLabel.text = failure.message
            messageLabel.style = Theme.error
            hintLabel.text = "Press r to try again."
        }
        view.setNeedsDisplay()
    }

    /// Shows the mark column while `anyMarked`, and redraws it.
    func marksDidChange(anyMarked: Bool) {
        if anyMarked != showsMarks {
            showsMarks = anyMarked
            if anyMarked {
                listView.columns.insert(ListColumn("", width: .fixed(1), priority: 9), at: 0)
            } else {
                listView.columns.removeFirst()
            }
        }
        if let content { show(content) }
    }

    private func show(_ content: ItemListContent) {
        var snapshot = ListSnapshot<Item.ID>()
        snapshot.append(content.rows.map(\.id))
        let rows = content.rows.map { ItemRowCell.Line(row: $0, isMarked: isMarked($0.id), showsMarks: showsMarks) }
        dataSource.apply(snapshot, rows: Dictionary(rows.map { ($0.row.id, $0) }, uniquingKeysWith: { a, _ in a }))
        if let id = content.selectedID { dataSource.select(id) }
        listView.scrollIndicator = (content.selectedPosition ?? 0, content.totalCount)
    }

    // MARK: - Keys

    public override func handle(_ event: KeyEvent) -> Bool {
        if searchField.isFocused { return handleSearchKey(event) }
        guard let action = KeyBindings.action(for: event) else { return false }
        let page = max(1, listView.visibleRowCount - 1)
        switch action {
        case .moveDown: viewModel.moveSelection(by: 1)
        case .moveUp: viewModel.moveSelection(by: -1)
        case .pageDown: viewModel.pageDown(rows: page)
        case .pageUp: viewModel.pageUp(rows: page)
        case .top: viewModel.jumpToTop()
        case .bottom: viewModel.jumpToBottom()
        case .search:
            searchField.isFocused = true
        case .clearSearch:
            guard viewModel.hasFilters || !searchField.text.isEmpty else { return false }
            searchField.setText("")
            viewModel.clearFilters()
        case .cycleStatus:
            let index = Self.statuses.firstIndex(of: viewModel.query.status) ?? 0
            viewModel.filter(status: Self.statuses[(index + 1) % Self.statuses.count])
        case .cycleSort:
            let current =
                Self.sorts.firstIndex { $0 == (viewModel.query.sortField, viewModel.query.sortDirection) } ?? 0
            let next = Self.sorts[(current + 1) % Self.sorts.count]
            viewModel.sort(by: next.0, next.1)
        case .retry:
            viewModel.retry()
        default:
            return false
        }
        return true
    }

    private func handleSearchKey(_ event: KeyEvent) -> Bool {
        switch event.key {
        case .escape:
            searchField.setText("")
            searchField.isFocused = false
            viewModel.search("")
            return true
        case .enter, .tab:
            searchField.isFocused = false
            return true
        case .down, .up, .pageDown, .pageUp:
            searchField.isFocused = false
            return handle(event)
        default:
            if event == .control("c") { return false }
            return searchField.handle(event)
        }
    }

    public override func handlePaste(_ text: String) -> Bool {
        searchField.isFocused = true
        searchField.paste(text)
        return true
    }

    public override func handleMouse(_ event: MouseEvent) -> Bool {
        switch event.action {
        case .wheelDown: viewModel.moveSelection(by: 3)
        case .wheelUp: viewModel.moveSelection(by: -3)
        case .press(button: 0):
            if searchField.frame.contains(event.position) {
                searchField.isFocused = true
                return true
            }
            guard let index = listView.rowIndex(at: event.position), index < dataSource.snapshot.count else {
                return false
            }
            viewModel.select(id: dataSource.snapshot.ids[index])
        default: return false
        }
        return true
    }
}

/// One item row: mark, done mark, priority, title, owner, updated.
final class ItemRowCell: ListCell {
    /// A row and whether it is marked.
    struct Line: Hashable, Sendable {
        let row: ItemRowViewModel
        let isMarked: Bool
        /// True when the first column is the mark column.
        let showsMarks: Bool
    }

    private var line: Line?

    init() {}

    func configure(with line: Line) { self.line = line }

    func draw(in canvas: inout Canvas, frame: Rect, columns: [ColumnFrame], isSelected: Bool) {
        guard let line else { return }
        let row = line.row
        let titleStyle = row.isDone ? Theme.done : Style.plain
        for column in columns {
            let point = Point(x: column.x, y: frame.y)
            switch line.showsMarks ? column.index : column.index + 1 {
            case 0: canvas.draw(line.isMarked ? "*" : " ", at: point, style: Theme.mark, width: column.width)
            case 1: canvas.draw(row.doneMark, at: point, style: Theme.done, width: column.width)
            case 2: canvas.draw(row.priorityMark, at: point, style: Theme.priority, width: column.width)
            case 3: canvas.draw(row.title, at: point, style: titleStyle, width: column.width)
            case 4: canvas.draw(row.owner, at: point, style: Theme.owner, width: column.width)
            default:
                canvas.draw(
                    TextLayout.pad(row.updated, to: column.width, alignment: .trailing), at: point, style: Theme.date,
                    width: column.width)
            }
        }
    }
}
