import Testing

@testable import ShelfTerminal

@MainActor
@Suite("ListView placement and header")
struct ListViewPlacementTests {
    private func makeList() -> (ListView, ListDataSource<Int, WordCell>) {
        let list = ListView()
        list.columns = [ListColumn("A", width: .fixed(3)), ListColumn("Word", width: .flexible())]
        list.frame = Rect(x: 2, y: 1, width: 20, height: 5)
        return (list, ListDataSource(listView: list, cell: WordCell.self))
    }

    @Test func theHeaderTellsWhichColumnIsUnderAPoint() {
        let (list, _) = makeList()
        #expect(list.headerColumn(at: Point(x: 2, y: 1)) == 0)
        #expect(list.headerColumn(at: Point(x: 4, y: 1)) == 0)
        #expect(list.headerColumn(at: Point(x: 5, y: 1)) == nil)  // the gap between columns
        #expect(list.headerColumn(at: Point(x: 6, y: 1)) == 1)
        #expect(list.headerColumn(at: Point(x: 6, y: 2)) == nil)  // a row, not the header
        list.showsHeader = false
        #expect(list.headerColumn(at: Point(x: 6, y: 1)) == nil)
    }

    @Test func scrollingToATopRowKeepsTheSelectionVisible() {
        let (list, source) = makeList()
        source.apply(ListSnapshot(0..<20), rows: Dictionary(uniqueKeysWithValues: (0..<20).map { ($0, "w\($0)") }))
        source.select(6)
        list.scroll(toTop: 4)
        #expect(list.topIndex == 4)
        // Past the end: clamped so the rows fill the list.
        list.scroll(toTop: 50)
        #expect(list.topIndex == 6)
        // Below the selection: the selection stays on screen.
        list.scroll(toTop: 0)
        #expect(list.topIndex == 3)
    }

    @Test func aLayoutThatChangesTheVisibleRowsSaysSo() {
        let (list, _) = makeList()
        var counts: [Int] = []
        list.onVisibleRowCountChange = { counts.append($0) }
        list.layoutSubviews()
        list.layoutSubviews()
        list.frame = Rect(x: 0, y: 0, width: 20, height: 9)
        list.layoutSubviews()
        #expect(counts == [4, 8])
    }
}
