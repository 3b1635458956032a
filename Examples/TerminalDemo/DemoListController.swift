import Foundation
import ShelfReactive
import ShelfTerminal

/// The demo's view model: every line, and the ones matching the filter.
final class DemoListModel: Sendable {
    struct Line: Hashable, Sendable {
        let id: Int
        let text: String
    }

    private let all: [Line]
    private let filterText = MutableProperty("")
    /// The lines matching the filter, in order.
    let lines: Property<[Line]>

    init(count: Int) {
        let words = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "harbor", "indigo", "juniper"]
        let all = (0..<max(0, count)).map { n in
            Line(id: n, text: "Line \(n + 1): \(words[n % words.count]) \(words[(n / 10) % words.count])")
        }
        self.all = all
        lines = filterText.property.map { text in
            text.isEmpty ? all : all.filter { $0.text.localizedCaseInsensitiveContains(text) }
        }
    }

    /// Shows only lines containing `text` (case-insensitive); empty shows all.
    func filter(_ text: String) { filterText.value = text }
}

/// Shows the demo list: `/` focuses the filter, Esc clears it, j/k and arrows move, q quits.
final class DemoListController: Controller {
    private let viewModel: DemoListModel
    private let field = TextField(prompt: "/", placeholder: "type / to filter")
    private let list = ListView()
    private let status = StatusBar()
    private lazy var dataSource = ListDataSource<Int, DemoLineCell>(listView: list, cell: DemoLineCell.self)

    init(viewModel: DemoListModel) {
        self.viewModel = viewModel
        super.init()
    }

    override func loadView() {
        list.columns = [ListColumn("Line", width: .flexible())]
        list.length = .flexible()
        view = StackView(axis: .vertical, [field, list, status])
    }

    override func viewDidLoad() {
        field.onChange = { [viewModel] text in viewModel.filter(text) }
        viewModel.lines.observeOnMainActor(during: lifetime) { [weak self] lines in self?.render(lines) }
    }

    private func render(_ lines: [DemoListModel.Line]) {
        dataSource.apply(
            ListSnapshot(lines.map(\.id)), rows: Dictionary(uniqueKeysWithValues: lines.map { ($0.id, $0.text) }))
        status.left = field.text.isEmpty ? "\(lines.count) lines" : "\(lines.count) lines match “\(field.text)”"
        status.right = "/ filter  j/k move  q quit "
    }

    override func handle(_ event: KeyEvent) -> Bool {
        if field.isFocused {
            switch event.key {
            case .escape:
                field.setText("")
                viewModel.filter("")
                field.isFocused = false
                return true
            case .enter, .down, .up:
                field.isFocused = false
                return event.key == .enter ? true : handle(event)
            default:
                if event == .control("c") { break }
                return field.handle(event)
            }
        }
        switch event {
        case .character("/"): field.isFocused = true
        case .character("j"), KeyEvent(.down): dataSource.moveSelection(by: 1)
        case .character("k"), KeyEvent(.up): dataSource.moveSelection(by: -1)
        case KeyEvent(.pageDown): dataSource.moveSelection(by: list.visibleRowCount)
        case KeyEvent(.pageUp): dataSource.moveSelection(by: -list.visibleRowCount)
        case .character("g"), KeyEvent(.home): dataSource.select(index: 0)
        case .character("G"), KeyEvent(.end): dataSource.select(index: Int.max)
        case .character("q"), .control("c"): quitApplication()
        default: return false
        }
        return true
    }

    override func handlePaste(_ text: String) -> Bool {
        field.isFocused = true
        field.paste(text)
        return true
    }

    override func handleMouse(_ event: MouseEvent) -> Bool {
        switch event.action {
        case .wheelDown: dataSource.moveSelection(by: 3)
        case .wheelUp: dataSource.moveSelection(by: -3)
        case .press(button: 0):
            guard let index = list.rowIndex(at: event.position) else { return false }
            dataSource.select(index: index)
        default: return false
        }
        return true
    }
}

/// One line of the demo list.
final class DemoLineCell: ListCell {
    private var text = ""
    init() {}
    func configure(with row: String) { text = row }
    func draw(in canvas: inout Canvas, frame: Rect, columns: [ColumnFrame], isSelected: Bool) {
        canvas.draw(text, at: frame.origin, width: frame.width)
    }
}
