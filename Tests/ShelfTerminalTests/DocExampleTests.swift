// The example of ShelfTerminal.docc/WritingATerminalApp.md, word for word, so the article
// keeps compiling and working as the API changes.

import Foundation
import ShelfReactive
import ShelfTerminal
import ShelfTerminalTesting
import Testing

final class ChoresModel: Sendable {
    struct Chore: Hashable, Sendable {
        let id: Int
        var title: String
        var isDone = false
    }

    private let mutableChores: MutableProperty<[Chore]>
    /// The chores, in order.
    let chores: Property<[Chore]>

    init(titles: [String]) {
        mutableChores = MutableProperty(titles.enumerated().map { Chore(id: $0.offset, title: $0.element) })
        chores = mutableChores.property
    }

    func toggle(id: Int) {
        mutableChores.modify { chores in
            guard let index = chores.firstIndex(where: { $0.id == id }) else { return false }
            chores[index].isDone.toggle()
            return true
        }
    }
}

final class ChoreCell: ListCell {
    private var chore: ChoresModel.Chore?

    init() {}

    func configure(with row: ChoresModel.Chore) { chore = row }

    func draw(in canvas: inout Canvas, frame: Rect, columns: [ColumnFrame], isSelected: Bool) {
        guard let chore else { return }
        for column in columns {
            let text = column.index == 0 ? (chore.isDone ? "✓" : "·") : chore.title
            let style = chore.isDone ? Style(attributes: .dim) : .plain
            canvas.draw(text, at: Point(x: column.x, y: frame.y), style: style, width: column.width)
        }
    }
}

final class ChoresController: Controller {
    private let model: ChoresModel
    private let list = ListView()
    private let status = StatusBar()
    private lazy var dataSource = ListDataSource<Int, ChoreCell>(listView: list, cell: ChoreCell.self)

    init(model: ChoresModel) {
        self.model = model
        super.init()
    }

    override func loadView() {
        list.columns = [ListColumn("", width: .fixed(1)), ListColumn("Chore", width: .flexible())]
        view = StackView(axis: .vertical, [list, status])
    }

    override func viewDidLoad() {
        model.chores.observeOnMainActor(during: lifetime) { [weak self] chores in
            self?.render(chores)
        }
    }

    private func render(_ chores: [ChoresModel.Chore]) {
        dataSource.apply(
            ListSnapshot(chores.map(\.id)),
            rows: Dictionary(uniqueKeysWithValues: chores.map { ($0.id, $0) }))
        status.left = "\(chores.filter(\.isDone).count) of \(chores.count) done"
        status.right = "space toggle  q quit "
    }

    override func handle(_ event: KeyEvent) -> Bool {
        switch event {
        case .character("j"), KeyEvent(.down): dataSource.moveSelection(by: 1)
        case .character("k"), KeyEvent(.up): dataSource.moveSelection(by: -1)
        case .character(" "):
            if let id = dataSource.selectedID { model.toggle(id: id) }
        case .character("q"), .control("c"): quitApplication()
        default: return false
        }
        return true
    }
}

struct Chores {
    @MainActor
    static func main() async throws {
        let model = ChoresModel(titles: ["Water the plants", "Take out the bins", "Call Ada"])
        let application = Application(
            rootController: ChoresController(model: model),
            environment: ProcessInfo.processInfo.environment)
        let ending = try await application.run()
        if case .signal(let number) = ending { exit(128 + number) }
    }
}

@MainActor
@Test func spaceTicksOffTheSelectedChore() async {
    let model = ChoresModel(titles: ["Water the plants", "Take out the bins"])
    let screen = HeadlessScreen(rootController: ChoresController(model: model), size: Size(width: 50, height: 5))
    defer { screen.close() }

    let loaded = await screen.waitUntil(timeout: .seconds(3)) { $0.contains("0 of 2 done") }
    print(screen.text)
    #expect(loaded)

    screen.send(.character(" "))
    let ticked = await screen.waitUntil { $0.contains("1 of 2 done") }
    #expect(ticked)
    #expect(screen.lines[1].hasPrefix("✓ Water the plants"))
}
