public import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
public import ShelfTerminal

/// The item list: a search field, the rows, and what shows instead of them while loading,
/// when nothing matches or when reading failed.
///
/// Handles moving, searching, filtering, sorting (`s` the next field, `S` the other way, a
/// click on a column header: by that column, again the other way) and marking done; every
/// other key goes up to the browser. The list shows the rows the view model places on screen
/// (the selected row keeps its line), the sort in the header (▲ ascending, ▼ descending), and
/// "↑ N new" at the end of the search line when items arrived above the first row shown.
public final class ItemListController: Controller, KeyModeReporting {
    private let viewModel: ItemListViewModel

    private let searchField = TextField(prompt: "/", placeholder: "search (press /)")
    private let listView = ListView()
    private let spinner = Spinner("Loading items…")
    private let messageLabel = Label()
    private let hintLabel = Label("", style: Theme.hint)
    private let newItemsBadge = Badge(style: Theme.badge)
    /// What in the search text could not be understood (the rest still filters).
    private let problemLabel = Label("", style: Theme.error)
    private lazy var dataSource = ListDataSource<Item.ID, ItemRowCell>(listView: listView, cell: ItemRowCell.self)
    private var content: ItemListContent?
    /// Whether an item carries the browser's mark; call `marksDidChange(anyMarked:)` when marks change.
    var isMarked: (Item.ID) -> Bool = { _ in false }
    /// True while the mark column shows (only while something is marked).
    private var showsMarks = false

    private static let statuses: [Item.Status?] = [nil, .open, .done]
    /// Called when the search field takes or leaves the cursor (the keys that work change).
    var onKeyModesChange: (@MainActor () -> Void)?
    /// True while the search field has the cursor: keys type there.
    var isSearching: Bool { searchField.isFocused }

    /// The columns, in order (the configuration's), without the mark column.
    private let columns: [ItemColumn]

    /// A list of `viewModel`'s items showing `columns` (the configuration's), in order.
    public init(viewModel: ItemListViewModel, columns: [ItemColumn] = ItemColumn.defaults) {
        self.viewModel = viewModel
        self.columns = columns
        super.init()
        viewModel.keys = Theme.keyNames
        searchField.placeholder = "search (press \(Theme.keyNames("list.search", "/")))"
    }

    public override func loadView() {
        listView.columns = columns.map(\.listColumn)
        messageLabel.wraps = true
        messageLabel.length = .flexible()
        hintLabel.wraps = true
        hintLabel.length = .fixed(2)
        let placeholder = StackView(axis: .vertical, [spinner, messageLabel, hintLabel])
        let body = View()
        body.addSubview(listView)
        body.addSubview(placeholder)
        body.length = .flexible()
        // The badge draws over the search line's right end, so showing it moves no row.
        let root = View()
        problemLabel.isHidden = true
        root.addSubview(StackView(axis: .vertical, [searchField, problemLabel, body]))
        root.addSubview(newItemsBadge)
        view = root
    }

    public override func viewDidLoad() {
        searchField.onChange = { [viewModel] text in viewModel.search(text) }
        listView.onVisibleRowCountChange = { [viewModel] rows in viewModel.setVisibleRowCount(rows) }
        viewModel.state.bind(during: lifetime) { [weak self] state in self?.render(state) }
    }

    // MARK: - Rendering

    /// Hides everything, then shows what the state says.
    private func render(_ state: ViewState<ItemListContent>) {
        listView.isHidden = true
        spinner.isHidden = true
        messageLabel.isHidden = true
        hintLabel.isHidden = true
        newItemsBadge.text = ""
        content = state.value
        showQuery()
        showSort()
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
            messageLabel.text = message
            messageLabel.style = .plain
        case .failed(let failure):
            messageLabel.isHidden = false
            messageLabel.text = failure.message
            messageLabel.style = Theme.error
        }
        hintLabel.text = viewModel.hint ?? ""
        hintLabel.isHidden = viewModel.hint == nil
        view.setNeedsDisplay()
    }

    /// Shows the mark column while `anyMarked`, and redraws it.
    func marksDidChange(anyMarked: Bool) {
        if anyMarked != showsMarks {
            showsMarks = anyMarked
            showSort()
        }
        if let content { show(content) }
    }

    private func show(_ content: ItemListContent) {
        var snapshot = ListSnapshot<Item.ID>()
        snapshot.append(content.rows.map(\.id))
        let rows = content.rows.map {
            ItemRowCell.Line(
                row: $0, isMarked: isMarked($0.id), fields: shownFields, highlights: viewModel.highlightTerms)
        }
        dataSource.apply(snapshot, rows: Dictionary(rows.map { ($0.row.id, $0) }, uniquingKeysWith: { a, _ in a }))
        if let id = content.selectedID { dataSource.select(id) }
        listView.scroll(toTop: content.topIndex)
        if let position = content.selectedPosition, let total = content.totalCount {
            listView.scrollIndicator = (position, total)
        } else {
            listView.scrollIndicator = nil
        }
        newItemsBadge.text = content.newAboveBadge.map { " \($0) " } ?? ""
    }

    /// Shows the query's text in the search field when it was set from elsewhere (a saved
    /// view opened), and what in it could not be understood under the field.
    private func showQuery() {
        let text = viewModel.query.text
        if !searchField.isFocused, searchField.text != text { searchField.setText(text) }
        let problem = viewModel.queryProblem
        let lines = problem?.split(separator: "\n").map { "  " + $0 } ?? []
        problemLabel.text = lines.joined(separator: "\n")
        problemLabel.length = .fixed(max(1, lines.count))
        problemLabel.isHidden = problem == nil
    }

    /// What each column shows, in order: nil for the mark column, first while anything is marked.
    private var shownFields: [ItemColumn.Field?] {
        (showsMarks ? [nil] : []) + columns.map(\.field)
    }

    /// The mark column, first while anything is marked.
    private static let markColumn = ListColumn("", width: .fixed(1), priority: 9)

    /// Marks the sorted column's header with ▲ (ascending) or ▼ (descending).
    private func showSort() {
        let query = viewModel.query
        let arrow = ItemListSorting.arrow(query.sortDirection)
        var columns = self.columns.map(\.listColumn)
        if let index = self.columns.firstIndex(where: { $0.sort == query.sortField }) {
            let title = columns[index].title
            if case .fixed(let width) = columns[index].width, title.count + 2 > width {
                columns[index].title = String(title.prefix(max(0, width - 1))) + arrow
            } else {
                columns[index].title = title + " " + arrow
            }
        }
        if showsMarks { columns.insert(Self.markColumn, at: 0) }
        if columns != listView.columns { listView.columns = columns }
    }

    // MARK: - Keys

    /// The search field's keys while it is focused, else the list's.
    var keyModes: [KeyMode] { searchField.isFocused ? [.text, .search] : [.list] }

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
            setSearching(true)
        case .clearSearch:
            guard viewModel.hasFilters || !searchField.text.isEmpty else { return false }
            searchField.setText("")
            viewModel.clearFilters()
        case .cycleStatus:
            let index = Self.statuses.firstIndex(of: viewModel.query.status) ?? 0
            viewModel.filter(status: Self.statuses[(index + 1) % Self.statuses.count])
        case .cycleSort:
            viewModel.sortByNextField()
        case .reverseSort:
            viewModel.reverseSortDirection()
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
            setSearching(false)
            viewModel.search("")
            return true
        case .enter, .tab:
            setSearching(false)
            return true
        case .down, .up, .pageDown, .pageUp:
            setSearching(false)
            return handle(event)
        default:
            if event == .control("c") { return false }
            return searchField.handle(event)
        }
    }

    /// Gives the search field the cursor (or takes it), and says so when that changed.
    private func setSearching(_ searching: Bool) {
        guard searchField.isFocused != searching else { return }
        searchField.isFocused = searching
        onKeyModesChange?()
    }

    public override func handlePaste(_ text: String) -> Bool {
        setSearching(true)
        searchField.paste(text)
        return true
    }

    public override func handleMouse(_ event: MouseEvent) -> Bool {
        switch event.action {
        case .wheelDown: viewModel.moveSelection(by: 3)
        case .wheelUp: viewModel.moveSelection(by: -3)
        case .press(button: 0):
            if searchField.frame.contains(event.position) {
                setSearching(true)
                return true
            }
            if let column = listView.headerColumn(at: event.position) {
                // A header orders by its column; again, the other way.
                let index = showsMarks ? column - 1 : column
                if columns.indices.contains(index), let field = columns[index].sort {
                    viewModel.sortByColumn(field)
                }
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
