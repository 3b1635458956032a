import ShelfStore
import Testing

@testable import ShelfTerminal

/// A cell showing a string row in the first column.
@MainActor
final class WordCell: ListCell {
    var word = ""
    init() {}
    func configure(with row: String) { word = row }
    func draw(in canvas: inout Canvas, frame: Rect, columns: [ColumnFrame], isSelected: Bool) {
        guard let column = columns.first else { return }
        canvas.draw(word, at: Point(x: column.x, y: frame.y), width: column.width)
    }
}

@MainActor
@Suite("ListDataSource")
struct ListDataSourceTests {
    private func makeList(height: Int = 5) -> (ListView, ListDataSource<Int, WordCell>) {
        let list = ListView()
        list.showsHeader = false
        list.columns = [ListColumn("Word", width: .flexible())]
        list.frame = Rect(x: 0, y: 0, width: 12, height: height)
        return (list, ListDataSource(listView: list, cell: WordCell.self))
    }

    private func draw(_ list: ListView) -> [String] {
        var canvas = Canvas(size: list.frame.size)
        list.render(in: &canvas, tick: 0)
        return canvas.lines.map { $0.trimmingSuffix() }
    }

    private func rows(_ ids: [Int]) -> [Int: String] {
        Dictionary(uniqueKeysWithValues: ids.map { ($0, "row \($0)") })
    }

    @Test func changesAreKeyedByID() {
        let changes = ListChanges(from: ListSnapshot([1, 2, 3, 4]), to: ListSnapshot([4, 2, 5, 1]))
        #expect(changes.inserted == [5])
        #expect(changes.removed == [3])
        #expect(changes.moved == [4, 1])
    }

    @Test func unchangedSnapshotHasNoChanges() {
        #expect(ListChanges(from: ListSnapshot(0..<1000), to: ListSnapshot(0..<1000)).isEmpty)
    }

    @Test func selectionFollowsItsIDWhenRowsMove() {
        let (list, source) = makeList()
        source.apply(ListSnapshot([1, 2, 3, 4]), rows: rows([1, 2, 3, 4]))
        source.select(3)
        source.apply(ListSnapshot([3, 1, 2, 4]), rows: rows([1, 2, 3, 4]))
        #expect(source.selectedID == 3)
        #expect(list.selectedIndex == 0)
    }

    @Test func deletedSelectionMovesToTheNeighbour() {
        let (_, source) = makeList()
        source.apply(ListSnapshot([1, 2, 3, 4]), rows: rows([1, 2, 3, 4]))
        source.select(3)
        source.apply(ListSnapshot([1, 2, 4]), rows: rows([1, 2, 4]))
        #expect(source.selectedID == 4)
        source.apply(ListSnapshot([1, 2]), rows: rows([1, 2]))
        #expect(source.selectedID == 2)
        source.apply(ListSnapshot([]), rows: [:])
        #expect(source.selectedID == nil)
    }

    @Test func scrollAnchorStaysOnTheSameRowWhenRowsAreInsertedAbove() {
        let (list, source) = makeList(height: 3)
        source.apply(ListSnapshot(1...20), rows: rows(Array(1...20)))
        source.select(10)
        #expect(draw(list) == ["row 8      █", "row 9      │", "row 10     │"])
        source.apply(ListSnapshot([100, 101] + Array(1...20)), rows: rows([100, 101] + Array(1...20)))
        #expect(source.selectedID == 10)
        #expect(draw(list) == ["row 8      █", "row 9      │", "row 10     │"])
    }

    @Test func onlyChangedRowsAreReconfigured() {
        let (list, source) = makeList(height: 5)
        var content = rows([1, 2, 3, 4, 5])
        source.apply(ListSnapshot([1, 2, 3, 4, 5]), rows: content)
        _ = draw(list)
        #expect(source.configureCount == 5)
        content[3] = "changed"
        source.apply(ListSnapshot([1, 2, 3, 4, 5]), rows: content)
        #expect(draw(list) == ["row 1", "row 2", "changed", "row 4", "row 5"])
        #expect(source.configureCount == 6)
    }

    @Test func duplicateIDsAreReportedNotFatal() {
        let (list, source) = makeList()
        source.apply(ListSnapshot([1, 2, 1, 3, 2]), rows: rows([1, 2, 3]))
        #expect(source.duplicateIDs == [1, 2])
        #expect(source.snapshot.ids == [1, 2, 3])
        #expect(draw(list) == ["row 1", "row 2", "row 3", "", ""])
    }

    @Test func moveSelectionScrollsAndClamps() {
        let (list, source) = makeList(height: 3)
        source.apply(ListSnapshot(1...10), rows: rows(Array(1...10)))
        source.moveSelection(by: 4)
        #expect(source.selectedID == 5)
        #expect(draw(list) == ["row 3      █", "row 4      │", "row 5      │"])
        source.moveSelection(by: 100)
        #expect(source.selectedID == 10)
        source.moveSelection(by: -100)
        #expect(source.selectedID == 1)
        #expect(draw(list) == ["row 1      █", "row 2      │", "row 3      │"])
    }

    @Test func largeShuffleIsLinear() {
        var shuffled = Array(0..<100_000)
        var generator = SeededRandomNumberGenerator(seed: 7)
        shuffled.shuffle(using: &generator)
        let changes = ListChanges(from: ListSnapshot(0..<100_000), to: ListSnapshot(shuffled))
        #expect(changes.inserted.isEmpty && changes.removed.isEmpty)
        #expect(changes.moved.count > 99_000)
    }
}

@MainActor
@Suite("ListView")
struct ListViewTests {
    @Test func narrowWidthsDropLowPriorityColumns() {
        let list = ListView()
        list.columns = [
            ListColumn("Title", width: .minimum(10), priority: 10),
            ListColumn("Owner", width: .fixed(8), priority: 2),
            ListColumn("Updated", width: .fixed(8), priority: 1),
        ]
        #expect(list.columnFrames(width: 40).map(\.index) == [0, 1, 2])
        #expect(list.columnFrames(width: 25).map(\.index) == [0, 1])
        #expect(list.columnFrames(width: 12).map(\.index) == [0])
        let frames = list.columnFrames(width: 40)
        #expect(frames.map(\.width) == [22, 8, 8])
        #expect(frames.map(\.x) == [0, 23, 32])
    }

    @Test func scrollbarShowsWindowPosition() {
        let list = ListView()
        list.showsHeader = false
        list.frame = Rect(x: 0, y: 0, width: 5, height: 4)
        list.scrollIndicator = (position: 0, total: 1000)
        var canvas = Canvas(size: list.frame.size)
        list.render(in: &canvas, tick: 0)
        #expect(canvas.lines.map { String($0.last!) } == ["█", "│", "│", "│"])
        list.scrollIndicator = (position: 1000, total: 1000)
        canvas = Canvas(size: list.frame.size)
        list.render(in: &canvas, tick: 0)
        #expect(canvas.lines.map { String($0.last!) } == ["│", "│", "│", "█"])
    }
}
