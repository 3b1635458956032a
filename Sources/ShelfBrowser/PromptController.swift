public import ShelfPresentation
internal import ShelfReactive
public import ShelfTerminal

/// Asks for one line of text in a dialog: Enter submits, Esc cancels; a refused answer shows
/// why under the field and the dialog stays.
public final class PromptController: Controller, KeyModeReporting {
    private let viewModel: PromptViewModel
    private let field = TextField()
    private let errorLabel = Label("", style: Theme.error)

    /// A dialog asking `viewModel`'s question; present it modally.
    public init(viewModel: PromptViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        let question = Label(viewModel.question)
        errorLabel.wraps = true
        errorLabel.length = .fixed(2)
        let hint = Label(PromptViewModel.hints, style: Theme.hint)
        field.isFocused = true
        field.setText(viewModel.initialText)
        view = Dialog(
            title: viewModel.title, content: StackView(axis: .vertical, [question, field, errorLabel, hint]),
            preferredSize: Size(width: 60, height: 7))
    }

    public override func viewDidLoad() {
        viewModel.error.bind(during: lifetime) { [weak self] error in
            self?.errorLabel.text = error ?? ""
            self?.view.setNeedsDisplay()
        }
    }

    var keyModes: [KeyMode] { [.text, .prompt] }

    public override func handle(_ event: KeyEvent) -> Bool {
        switch event.key {
        case .enter:
            viewModel.submit(field.text)
            return true
        case .escape:
            viewModel.cancel()
            return true
        default:
            if event == .control("c") { return false }
            _ = field.handle(event)
            return true  // modal: no key reaches the list behind it
        }
    }

    public override func handlePaste(_ text: String) -> Bool {
        field.paste(text)
        return true
    }
}
