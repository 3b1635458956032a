internal import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
internal import ShelfTerminal

/// One item row: mark, done mark, priority, title, owner, updated.
final class ItemRowCell: ListCell {
    /// A row and whether it is marked.
    struct Line: Hashable, Sendable {
        let row: ItemRowViewModel
        let isMarked: Bool
        /// What each column shows, in order; nil for the mark column.
        let fields: [ItemColumn.Field?]
        /// The words a search looks for, highlighted in the title.
        var highlights: [String] = []
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
            guard line.fields.indices.contains(column.index) else { continue }
            switch line.fields[column.index] {
            case nil: canvas.draw(line.isMarked ? "*" : " ", at: point, style: Theme.mark, width: column.width)
            case .done: canvas.draw(row.doneMark, at: point, style: Theme.done, width: column.width)
            case .priority: canvas.draw(row.priorityMark, at: point, style: Theme.priority, width: column.width)
            case .title: drawTitle(row.title, at: point, style: titleStyle, width: column.width, in: &canvas)
            case .owner: canvas.draw(row.owner, at: point, style: Theme.owner, width: column.width)
            case .updated:
                canvas.draw(
                    TextLayout.pad(row.updated, to: column.width, alignment: .trailing), at: point, style: Theme.date,
                    width: column.width)
            }
        }
    }

    /// The title, with the parts the search matched highlighted (as a whole, cut to `width`
    /// like any cell).
    private func drawTitle(_ title: String, at point: Point, style: Style, width: Int, in canvas: inout Canvas) {
        canvas.draw(title, at: point, style: style, width: width)
        guard let highlights = line?.highlights, !highlights.isEmpty else { return }
        // A title cut to the column ends in an ellipsis: marks stop before it.
        let limit = DisplayWidth.of(title) > width ? point.x + width - 1 : point.x + width
        var x = point.x
        var index = title.startIndex
        for range in TextHighlighter.ranges(of: highlights, in: title) {
            x += DisplayWidth.of(String(title[index..<range.lowerBound]))
            let match = String(title[range])
            let matchWidth = DisplayWidth.of(match)
            guard x + matchWidth <= limit else { break }
            canvas.draw(match, at: Point(x: x, y: point.y), style: Theme.match, width: matchWidth)
            x += matchWidth
            index = range.upperBound
        }
    }
}
