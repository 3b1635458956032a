/// Draws one row of a list. Registered by type with a `ListDataSource`; the data source
/// makes one per visible line and reuses it as the list scrolls.
@MainActor
public protocol ListCell: AnyObject {
    associatedtype Row: Hashable & Sendable
    init()
    /// Shows `row`. Called only when the line shows a different row or the row's content
    /// changed.
    func configure(with row: Row)
    /// Draws into `frame` (one line); `columns` are the column frames that fit.
    func draw(in canvas: inout Canvas, frame: Rect, columns: [ColumnFrame], isSelected: Bool)
}

/// Feeds a `ListView` from snapshots of identifiers.
///
/// `apply(_:rows:)` computes the change keyed by identifier in O(n), keeps the selection
/// and the first visible row on the same identifiers (when the selected row goes away, the
/// row that took its place is selected), and reconfigures only visible cells whose row
/// changed. Main actor only.
@MainActor
public final class ListDataSource<ID: Hashable & Sendable, Cell: ListCell> {
    /// The value a cell shows for one identifier, as the cell type declares it.
    public typealias Row = Cell.Row

    @usableFromInline let listView: ListView
    @usableFromInline var storedSnapshot = ListSnapshot<ID>()
    @usableFromInline var rows: [ID: Row] = [:]
    /// One cell per visible line, with the identifier and row it shows.
    private var cells: [(cell: Cell, id: ID?, row: Row?)] = []
    /// Identifiers that appeared more than once in the last snapshot applied.
    @inlinable public var duplicateIDs: [ID] { storedSnapshot.duplicates }
    /// The snapshot shown.
    @inlinable public var snapshot: ListSnapshot<ID> { storedSnapshot }
    /// How many times a cell was configured (tests check that unchanged rows are not).
    private(set) var configureCount = 0

    /// Makes `listView` show this data source's rows, drawn by cells of type `cell`.
    public init(listView: ListView, cell: Cell.Type) {
        self.listView = listView
        listView.drawRow = { [unowned self] index, frame, columns, selected, canvas in
            drawRow(index, frame: frame, columns: columns, selected: selected, canvas: &canvas)
        }
    }

    /// The selected identifier, or nil.
    public var selectedID: ID? {
        listView.selectedIndex.map { storedSnapshot.ids[$0] }
    }

    /// Shows `snapshot`, with `rows` giving each identifier's content. Returns what changed.
    /// O(n) in the snapshot's size; inlinable so it is specialised for the identifier type.
    @inlinable
    @discardableResult
    public func apply(_ newSnapshot: ListSnapshot<ID>, rows newRows: [ID: Row]) -> ListChanges<ID> {
        let changes = ListChanges(from: storedSnapshot, to: newSnapshot)
        let oldSelection = listView.selectedIndex
        let oldTop = listView.topIndex
        let selected = oldSelection.map { storedSnapshot.ids[$0] }
        let topID = oldTop < storedSnapshot.count ? storedSnapshot.ids[oldTop] : nil

        var selection: Int?
        var top: Int
        if let selected, let index = newSnapshot.index(of: selected) {
            selection = index
        } else if let oldSelection, newSnapshot.count > 0 {
            selection = min(oldSelection, newSnapshot.count - 1)
        } else {
            selection = newSnapshot.count > 0 ? 0 : nil
        }
        // Keep the selected row on the same screen line when it moved; else keep the top row.
        if let selected, let oldSelection, let newIndex = newSnapshot.index(of: selected) {
            top = newIndex - (oldSelection - oldTop)
        } else {
            top = topID.flatMap { newSnapshot.index(of: $0) } ?? oldTop
        }
        storedSnapshot = newSnapshot
        rows = newRows
        listView.show(rowCount: newSnapshot.count, selectedIndex: selection, topIndex: top)
        return changes
    }

    /// Selects the row with `id`, scrolling it into view; false when there is none.
    @discardableResult
    public func select(_ id: ID) -> Bool {
        guard let index = storedSnapshot.index(of: id) else { return false }
        select(index: index)
        return true
    }

    /// Selects the row at `index` (clamped), scrolling it into view.
    public func select(index: Int) {
        guard storedSnapshot.count > 0 else { return }
        let index = max(0, min(index, storedSnapshot.count - 1))
        listView.selectedIndex = index
        listView.scrollToVisible(index)
        listView.setNeedsDisplay()
    }

    /// Moves the selection by `offset` rows (clamped).
    public func moveSelection(by offset: Int) {
        select(index: (listView.selectedIndex ?? 0) + offset)
    }

    /// The row content for `id`.
    public func row(for id: ID) -> Row? { rows[id] }

    private func drawRow(_ index: Int, frame: Rect, columns: [ColumnFrame], selected: Bool, canvas: inout Canvas) {
        let line = index - listView.topIndex
        while cells.count <= line { cells.append((Cell(), nil, nil)) }
        let id = storedSnapshot.ids[index]
        guard let row = rows[id] else { return }
        if cells[line].id != id || cells[line].row != row {
            cells[line].cell.configure(with: row)
            cells[line].id = id
            cells[line].row = row
            configureCount += 1
        }
        cells[line].cell.draw(in: &canvas, frame: frame, columns: columns, isSelected: selected)
    }
}
