public import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
public import ShelfTerminal

/// A form to create or edit an item: one text field per field, the reason under each
/// invalid one, and a prompt when someone else saved the item first.
///
/// Tab and Shift-Tab (or ↓ and ↑) move between fields, Enter saves, Esc goes back to the
/// list without saving. In a conflict, r reloads their version and o overwrites it.
public final class ItemEditorController: Controller {
    private let viewModel: ItemEditorViewModel

    private let fields: [(field: ItemEditorField, input: TextField, error: Label)] = ItemEditorField.allCases.map {
        field in
        let input = TextField(
            prompt: ItemEditorController.labels[field]!, placeholder: ItemEditorController.placeholders[field]!)
        let error = Label("", style: Theme.error)
        return (field, input, error)
    }
    private let phaseLabel = Label()
    private let hintLabel = Label("Tab next field · Enter save · Esc cancel", style: Theme.hint)
    private var focusIndex = 0

    private static let labels: [ItemEditorField: String] = [
        .title: "Title     ", .notes: "Notes     ", .priority: "Priority  ", .owner: "Owner     ",
    ]
    private static let placeholders: [ItemEditorField: String] = [
        .title: "what needs doing", .notes: "optional", .priority: "0 none … 3 high", .owner: "owner's email",
    ]

    public init(viewModel: ItemEditorViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        var rows: [View] = []
        for entry in fields {
            rows.append(entry.input)
            rows.append(entry.error)
        }
        phaseLabel.wraps = true
        phaseLabel.length = .fixed(2)
        rows.append(phaseLabel)
        rows.append(hintLabel)
        let title =
            switch viewModel.state.value.mode {
            case .create: "New item"
            case .edit(let id): "Edit item \(id)"
            }
        view = Dialog(
            title: title, content: StackView(axis: .vertical, rows), preferredSize: Size(width: 72, height: 15))
    }

    public override func viewDidLoad() {
        for entry in fields {
            entry.input.setText(viewModel.state.value[entry.field])
            entry.input.onChange = { [viewModel] text in viewModel.update(entry.field, to: text) }
        }
        focus(0)
        viewModel.state.bind(during: lifetime) { [weak self] content in self?.render(content) }
    }

    private func render(_ content: ItemEditorContent) {
        for entry in fields {
            entry.error.text = content.errors[entry.field].map { "          " + $0 } ?? ""
            // Values that changed in the model (a reload) replace what is in the field.
            if content[entry.field] != entry.input.text { entry.input.setText(content[entry.field]) }
        }
        phaseLabel.style = .plain
        switch content.phase {
        case .editing:
            phaseLabel.text = ""
            hintLabel.text = "Tab next field · Enter save · Esc cancel"
        case .saving:
            phaseLabel.text = "Saving…"
        case .saved:
            phaseLabel.text = "Saved."
        case .conflict(let theirs):
            phaseLabel.style = Theme.error
            phaseLabel.text = "Someone else saved this item meanwhile (their title: “\(theirs.title)”)."
            hintLabel.text = "r reload theirs (drops your edits) · o overwrite with yours · Esc cancel"
        case .failed(let message):
            phaseLabel.style = Theme.error
            phaseLabel.text = message
        }
        view.setNeedsDisplay()
    }

    private func focus(_ index: Int) {
        focusIndex = (index + fields.count) % fields.count
        for (position, entry) in fields.enumerated() { entry.input.isFocused = position == focusIndex }
    }

    public override func handle(_ event: KeyEvent) -> Bool {
        if case .conflict = viewModel.state.value.phase {
            switch event {
            case .character("r"): viewModel.reload()
            case .character("o"): viewModel.overwrite()
            case KeyEvent(.escape): return false
            default: break
            }
            return true
        }
        switch event {
        case KeyEvent(.tab), KeyEvent(.down): focus(focusIndex + 1)
        case KeyEvent(.tab, modifiers: .shift), KeyEvent(.up): focus(focusIndex - 1)
        case KeyEvent(.enter), .control("s"): viewModel.save()
        case KeyEvent(.escape), .control("c"): return false  // the browser closes the editor
        default:
            _ = fields[focusIndex].input.handle(event)
        }
        return true  // modal: keys never reach the list behind it
    }

    public override func handlePaste(_ text: String) -> Bool {
        fields[focusIndex].input.paste(text)
        return true
    }
}
