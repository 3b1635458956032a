import ShelfStore
import ShelfTerminal

/// The terminal kit: bytes and time per frame while a 10,000-row list scrolls on a 200×60
/// screen, and applying shuffled snapshots against the standard library's diff.
struct TerminalSuite {
    let runs: Int
    let report: Report

    @MainActor
    func run() async {
        report.header()
        scrolling()
        snapshots()
    }

    /// Scrolls one row per frame: the selection sits on the last visible row and moves down.
    @MainActor
    private func scrolling() {
        let controller = ScrollingListController(rows: 10_000)
        let window = Window(rootController: controller, size: Size(width: 200, height: 60))
        var renderer = Renderer(colorMode: .truecolor)
        _ = renderer.render(window.draw())
        controller.moveSelection(by: 56)  // to the bottom of the visible rows
        _ = renderer.render(window.draw())
        var bytes: [Double] = []
        var fullRedraw: [Double] = []
        var times: [Double] = []
        for _ in 0..<3_000 {
            controller.moveSelection(by: 1)
            var frame: [UInt8] = []
            times.append(
                time {
                    frame = renderer.render(window.draw())
                })
            bytes.append(Double(frame.count))
            fullRedraw.append(Double(renderer.rendered(window.draw()).count))
        }
        report.compare(
            "terminal.scroll_bytes", unit: "bytes/frame", shelf: bytes,
            against: [("full redraw", fullRedraw, "ratio ≤ 0.15")])
        report.print(Figure(name: "terminal.frame_time.median", unit: "ms", value: median(times) * 1000, target: ""))
        report.print(
            Figure(name: "terminal.frame_time.p99", unit: "ms", value: percentile(times, 99) * 1000, target: "≤ 2 ms"))
    }

    @MainActor
    private func snapshots() {
        var generator = SeededRandomNumberGenerator(seed: 11)
        let ids = Array(0..<10_000)
        let shuffled = ids.shuffled(using: &generator)
        var shelf: [Double] = []
        var stdlib: [Double] = []
        for _ in 0..<runs {
            let source = makeDataSource()
            source.apply(ListSnapshot(ids), rows: [:])
            shelf.append(time { source.apply(ListSnapshot(shuffled), rows: [:]) } * 1000)
            var difference: CollectionDifference<Int>?
            stdlib.append(time { difference = shuffled.difference(from: ids) } * 1000)
            precondition(difference?.isEmpty == false)
        }
        report.compare(
            "terminal.snapshot_shuffle", unit: "ms", shelf: shelf,
            against: [("stdlib-difference", stdlib, "ratio ≤ 0.05")])

        // 100,000 identifiers: 1% replaced by new ones, then all shuffled.
        let large = Array(0..<100_000)
        var changed = large
        for index in stride(from: 0, to: changed.count, by: 100) { changed[index] = 1_000_000 + index }
        changed.shuffle(using: &generator)
        var times: [Double] = []
        for _ in 0..<runs {
            let source = makeDataSource()
            source.apply(ListSnapshot(large), rows: [:])
            times.append(time { source.apply(ListSnapshot(changed), rows: [:]) })
        }
        report.print(
            Figure(
                name: "terminal.snapshot_100k_1pct", unit: "ms", value: median(times) * 1000, target: "≤ 20 ms"))
    }

    @MainActor
    private func makeDataSource() -> ListDataSource<Int, BenchmarkCell> {
        let list = ListView()
        list.frame = Rect(x: 0, y: 0, width: 200, height: 58)
        return ListDataSource(listView: list, cell: BenchmarkCell.self)
    }
}

/// A list of item-like rows with five columns and a status bar.
final class ScrollingListController: Controller {
    private let list = ListView()
    private let status = StatusBar()
    private let rows: [Int: BenchmarkRow]
    private let count: Int
    private lazy var dataSource = ListDataSource<Int, BenchmarkCell>(listView: list, cell: BenchmarkCell.self)

    init(rows count: Int) {
        self.count = count
        let owners = ["Ada Lovelace", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth"]
        var rows: [Int: BenchmarkRow] = [:]
        for n in 0..<count {
            rows[n] = BenchmarkRow(
                done: n % 3 == 0 ? "✓" : " ", priority: String(repeating: "!", count: n % 4),
                title: "Item \(n): review the quarterly figures and write up the \(n % 7) open questions",
                owner: owners[n % owners.count], updated: "\(n % 59 + 1)m ago")
        }
        self.rows = rows
        super.init()
    }

    override func loadView() {
        list.columns = [
            ListColumn("", width: .fixed(1), priority: 5), ListColumn("P", width: .fixed(3), priority: 3),
            ListColumn("Title", width: .minimum(20), priority: 10), ListColumn("Owner", width: .fixed(18), priority: 2),
            ListColumn("Updated", width: .fixed(9), alignment: .trailing, priority: 1),
        ]
        view = StackView(axis: .vertical, [list, status])
    }

    override func viewDidLoad() {
        dataSource.apply(ListSnapshot(0..<count), rows: rows)
        updateStatus()
    }

    func moveSelection(by offset: Int) {
        dataSource.moveSelection(by: offset)
        updateStatus()
    }

    private func updateStatus() {
        status.left = "item \((dataSource.selectedID ?? 0) + 1) of \(count)"
    }
}

struct BenchmarkRow: Hashable, Sendable {
    let done: String
    let priority: String
    let title: String
    let owner: String
    let updated: String
}

final class BenchmarkCell: ListCell {
    private var row: BenchmarkRow?
    init() {}
    func configure(with row: BenchmarkRow) { self.row = row }
    func draw(in canvas: inout Canvas, frame: Rect, columns: [ColumnFrame], isSelected: Bool) {
        guard let row else { return }
        let texts = [row.done, row.priority, row.title, row.owner, row.updated]
        let styles = [
            Style(foreground: .green), Style(foreground: .red, attributes: .bold), Style.plain,
            Style(foreground: .cyan), Style(foreground: .rgb(140, 140, 140)),
        ]
        for column in columns {
            canvas.draw(
                texts[column.index], at: Point(x: column.x, y: frame.y), style: styles[column.index],
                width: column.width)
        }
    }
}

extension Renderer {
    /// The bytes of a full redraw of `canvas` by a fresh renderer.
    func rendered(_ canvas: Canvas) -> [UInt8] {
        var fresh = Renderer(colorMode: colorMode)
        return fresh.render(canvas)
    }
}
