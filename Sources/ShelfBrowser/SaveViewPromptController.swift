public import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
public import ShelfTerminal

/// A small dialog asking for a name to save the list's search and sort under: Enter saves,
/// Esc cancels. Saving over an existing view asks first (y or Enter replaces it, n or Esc
/// goes back to the name).
///
/// The browser closes it on Esc, and once the view is saved.
public final class SaveViewPromptController: Controller, KeyModeReporting {
    private let viewModel: SaveViewPromptViewModel

    private let nameField = TextField(prompt: "Name  ", placeholder: "a name for this search and sort")
    private let queryLabel = Label("", style: Theme.hint)
    private let phaseLabel = Label()
    private let hintLabel = Label("", style: Theme.hint)

    public init(viewModel: SaveViewPromptViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        phaseLabel.wraps = true
        phaseLabel.length = .fixed(2)
        queryLabel.text = viewModel.queryLine
        view = Dialog(
            title: "Save view", content: StackView(axis: .vertical, [nameField, queryLabel, phaseLabel, hintLabel]),
            preferredSize: Size(width: 64, height: 7))
    }

    public override func viewDidLoad() {
        nameField.setText(viewModel.state.value.name)
        nameField.isFocused = true
        nameField.onChange = { [viewModel] text in viewModel.update(name: text) }
        viewModel.state.bind(during: lifetime) { [weak self] content in self?.render(content) }
    }

    private func render(_ content: SaveViewPromptContent) {
        phaseLabel.style = content.isFailure ? Theme.error : .plain
        phaseLabel.text = content.phaseText
        hintLabel.text = content.hint(keys: Theme.keyNames)
        view.setNeedsDisplay()
    }

    /// The question's keys while it asks whether to replace a view, else the prompt's.
    var keyModes: [KeyMode] {
        if case .confirmingReplace = viewModel.state.value.phase { return [.confirm] }
        return [.text, .prompt]
    }

    public override func handle(_ event: KeyEvent) -> Bool {
        if case .confirmingReplace = viewModel.state.value.phase {
            switch event {
            case .character("y"), .character("Y"), KeyEvent(.enter): viewModel.confirmReplace()
            case .character("n"), .character("N"), KeyEvent(.escape): viewModel.cancelReplace()
            case .control("c"): return false
            default: break
            }
            return true
        }
        switch event {
        case KeyEvent(.enter): viewModel.save()
        case KeyEvent(.escape), .control("c"): return false  // the browser closes the prompt
        default: _ = nameField.handle(event)
        }
        return true  // modal: keys never reach the list behind it
    }

    public override func handlePaste(_ text: String) -> Bool {
        nameField.paste(text)
        return true
    }
}
