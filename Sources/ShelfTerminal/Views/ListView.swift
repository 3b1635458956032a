/// A column of a list: a title, a width and how it is dropped when the list is narrow.
public struct ListColumn: Hashable, Sendable {
    /// The header text; cut with an ellipsis when wider than the column.
    public var title: String
    /// `fixed(n)` takes n cells, `minimum(n)` at least n plus a share, `flexible` a share.
    public var width: Length
    /// How the header and (by convention) the cells of this column sit in its width.
    public var alignment: TextLayout.Alignment
    /// When the columns do not fit, the lowest priorities are dropped first.
    public var priority: Int

    /// A column titled `title`. A column with a lower `priority` is dropped before one with a
    /// higher priority when the list is too narrow for all of them.
    public init(_ title: String, width: Length, alignment: TextLayout.Alignment = .leading, priority: Int = 0) {
        self.title = title
        self.width = width
        self.alignment = alignment
        self.priority = priority
    }
}

/// Where one column is drawn in a row; `index` is its position in `ListView.columns`.
public struct ColumnFrame: Hashable, Sendable {
    /// The column's position in `ListView.columns`.
    public var index: Int
    /// The column's first cell: relative to the list when returned by `columnFrames(width:)`,
    /// absolute on the screen when handed to a `ListCell`.
    public var x: Int
    /// The column's width in cells; never past the end of the row.
    public var width: Int
}

/// A scrolling list of rows with an optional header row, a selection highlight and a
/// scrollbar. Rows are drawn by the list's data source (see `ListDataSource`); the list
/// itself knows only counts and indexes.
///
/// When the rows shown are a window of a longer list, set `scrollIndicator` so the
/// scrollbar shows the position in the whole list.
@MainActor
public final class ListView: View {
    /// The columns, in the order they are drawn. Setting them redraws.
    public var columns: [ListColumn] = [] { didSet { if columns != oldValue { setNeedsDisplay() } } }
    /// Whether the first line shows the column titles. Setting it redraws.
    public var showsHeader = true { didSet { if showsHeader != oldValue { setNeedsDisplay() } } }
    /// The style of the header line. Takes effect at the next draw.
    public var headerStyle = Style(attributes: [.bold, .underline])
    /// The attributes added to the selected row while `isFocused`; when not focused, the row is
    /// drawn bold instead. Takes effect at the next draw.
    public var selectionStyle = Style(attributes: .reverse)
    /// Whether the selection is drawn as focused (full highlight) or not (dim).
    public var isFocused = true { didSet { if isFocused != oldValue { setNeedsDisplay() } } }
    /// The position to show in the scrollbar when the rows are a window of `total` rows.
    public var scrollIndicator: (position: Int, total: Int)? {
        didSet {
            if scrollIndicator?.position != oldValue?.position || scrollIndicator?.total != oldValue?.total {
                setNeedsDisplay()
            }
        }
    }

    /// Number of rows (set by the data source).
    public internal(set) var rowCount = 0
    /// The selected row, or nil.
    public internal(set) var selectedIndex: Int?
    /// The first row shown.
    public internal(set) var topIndex = 0
    /// Called after a layout that changed `visibleRowCount` (the first layout, a resize), with
    /// the new count; a list that places its own rows (`scroll(toTop:)`) needs it.
    public var onVisibleRowCountChange: (@MainActor (Int) -> Void)?
    private var laidOutRowCount: Int?
    /// Draws row `index` into `frame` (set by the data source).
    var drawRow:
        (@MainActor (_ index: Int, _ frame: Rect, _ columns: [ColumnFrame], _ selected: Bool, inout Canvas) -> Void)?

    /// An empty list: no rows until a `ListDataSource` is attached and applies a snapshot.
    public override init() {
        super.init()
    }

    /// Rows that fit in the frame.
    public var visibleRowCount: Int { max(0, frame.height - (showsHeader ? 1 : 0)) }

    /// The column whose header is under a screen point, as an index into `columns`; nil when
    /// the point is not on the header line or falls between columns.
    public func headerColumn(at point: Point) -> Int? {
        guard showsHeader, point.y == frame.y, frame.contains(point) else { return nil }
        let x = point.x - frame.x
        return columnFrames(width: frame.width - 1).first { x >= $0.x && x < $0.x + $0.width }?.index
    }

    /// Shows row `index` on the first line (clamped so the rows fill the list), then scrolls
    /// the least needed to keep the selected row visible.
    public func scroll(toTop index: Int) {
        topIndex = index
        clampTop()
        if let selectedIndex { scrollToVisible(selectedIndex) }
        setNeedsDisplay()
    }

    public override func layoutSubviews() {
        super.layoutSubviews()
        guard visibleRowCount != laidOutRowCount else { return }
        laidOutRowCount = visibleRowCount
        onVisibleRowCountChange?(visibleRowCount)
    }

    /// The row under a screen point, if any.
    public func rowIndex(at point: Point) -> Int? {
        let y = point.y - frame.y - (showsHeader ? 1 : 0)
        guard frame.contains(point), y >= 0 else { return nil }
        let index = topIndex + y
        return index < rowCount ? index : nil
    }

    /// Shows `rowCount` rows with `selectedIndex` selected, scrolled near `topIndex` and so
    /// that the selection is visible.
    @usableFromInline
    func show(rowCount: Int, selectedIndex: Int?, topIndex: Int) {
        self.rowCount = rowCount
        self.selectedIndex = selectedIndex
        self.topIndex = topIndex
        clampTop()
        if let selectedIndex { scrollToVisible(selectedIndex) }
        setNeedsDisplay()
    }

    /// Scrolls the least needed so row `index` is visible.
    func scrollToVisible(_ index: Int) {
        let visible = max(1, visibleRowCount)
        if index < topIndex { topIndex = index }
        if index >= topIndex + visible { topIndex = index - visible + 1 }
        clampTop()
    }

    func clampTop() {
        topIndex = max(0, min(topIndex, rowCount - max(1, visibleRowCount)))
    }

    /// The columns that fit in `width`, dropping the lowest priorities first, with frames.
    public func columnFrames(width: Int) -> [ColumnFrame] {
        var kept = Array(columns.indices)
        func minimum(_ indexes: [Int]) -> Int {
            indexes.reduce(0) { total, index in
                switch columns[index].width {
                case .fixed(let n), .minimum(let n): total + n
                case .flexible: total + 1
                }
            } + max(0, indexes.count - 1)
        }
        while kept.count > 1, minimum(kept) > width {
            let drop = kept.min { columns[$0].priority < columns[$1].priority } ?? kept[kept.count - 1]
            kept.removeAll { $0 == drop }
        }
        let sizes = StackView.distribute(width - max(0, kept.count - 1), among: kept.map { columns[$0].width })
        var x = 0
        return zip(kept, sizes).map { index, size in
            defer { x += size + 1 }
            return ColumnFrame(index: index, x: x, width: min(size, max(0, width - x)))
        }
    }

    /// Draws the header, the visible rows (through the data source's cells) with the selection
    /// highlighted, and a scrollbar in the last column when the rows do not all fit. The last
    /// column is always kept for the scrollbar so other columns do not shift.
    public override func draw(in canvas: inout Canvas) {
        let needsScrollbar = (scrollIndicator?.total ?? rowCount) > visibleRowCount
        // The scrollbar's column is kept even when it is not needed, so columns never shift
        // when rows are added or removed.
        let contentWidth = frame.width - 1
        let frames = columnFrames(width: contentWidth).map {
            ColumnFrame(index: $0.index, x: frame.x + $0.x, width: $0.width)
        }
        var y = frame.y
        if showsHeader {
            canvas.fill(Rect(x: frame.x, y: y, width: contentWidth, height: 1), style: headerStyle)
            for column in frames {
                let title = TextLayout.pad(
                    columns[column.index].title, to: column.width, alignment: columns[column.index].alignment)
                canvas.draw(title, at: Point(x: column.x, y: y), style: headerStyle, width: column.width)
            }
            y += 1
        }
        clampTop()
        for index in topIndex..<min(rowCount, topIndex + visibleRowCount) {
            let rowFrame = Rect(x: frame.x, y: y, width: contentWidth, height: 1)
            let selected = index == selectedIndex
            drawRow?(index, rowFrame, frames, selected, &canvas)
            if selected {
                let style = isFocused ? selectionStyle : Style(attributes: .bold)
                canvas.restyle(rowFrame) { $0.attributes.formUnion(style.attributes) }
            }
            y += 1
        }
        if needsScrollbar { drawScrollbar(in: &canvas, top: frame.y + (showsHeader ? 1 : 0)) }
    }

    private func drawScrollbar(in canvas: inout Canvas, top: Int) {
        let height = visibleRowCount
        guard height > 0 else { return }
        let total = max(1, scrollIndicator?.total ?? rowCount)
        let position = scrollIndicator?.position ?? topIndex
        let thumb = max(1, height * height / total)
        let thumbTop = total <= height ? 0 : (height - thumb) * min(position, total - height) / max(1, total - height)
        let x = frame.maxX - 1
        for row in 0..<height {
            let inThumb = row >= thumbTop && row < thumbTop + thumb
            canvas.draw(
                inThumb ? "█" : "│", at: Point(x: x, y: top + row), style: Style(attributes: inThumb ? [] : .dim),
                width: 1)
        }
    }
}
