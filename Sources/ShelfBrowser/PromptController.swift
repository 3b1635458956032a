public import ShelfPresentation
internal import ShelfReactive
public import ShelfTerminal

/// Asks for one line of text in a dialog: Enter submits, Esc cancels; a refused answer shows
/// why under the field and the dialog stays. When the prompt completes its text (the owner
/// prompt: names and emails), the choices hang under the field as in the item editor: ↑/↓
/// choose, Tab or Enter takes one, Esc closes the list.
public final class PromptController: Controller, KeyModeReporting {
    private let viewModel: PromptViewModel
    private let field = TextField()
    private let errorLabel = Label("", style: Theme.error)
    private var host: PopupHost?
    /// The suggestion chosen with ↑/↓.
    private var suggestionIndex = 0
    /// True once a suggestion was taken or Esc closed the list, until the text changes.
    private var suggestionsDismissed = false

    /// Rows the dialog keeps for the suggestions under the field.
    private static let suggestionRows = ItemEditorViewModel.maximumSuggestions + 2

    /// A dialog asking `viewModel`'s question; present it modally.
    public init(viewModel: PromptViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        let question = Label(viewModel.question)
        errorLabel.wraps = true
        errorLabel.length = .fixed(2)
        let hint = Label(PromptViewModel.hints(keys: Theme.keyNames), style: Theme.hint)
        field.isFocused = true
        field.setText(viewModel.initialText)
        guard viewModel.completes else {
            view = Dialog(
                title: viewModel.title, content: StackView(axis: .vertical, [question, field, errorLabel, hint]),
                preferredSize: Size(width: 60, height: 7))
            return
        }
        for view in [question, field, hint] as [View] { view.length = .fixed(1) }
        // Room under the rows for the popup, which is drawn over what is below the field; on
        // a short screen it gives way first (the question, field and error keep their rows).
        let room = View()
        room.length = .flexible()
        let host = PopupHost(stack: StackView(axis: .vertical, [question, field, errorLabel, hint, room]))
        host.anchor = field
        self.host = host
        view = Dialog(
            title: viewModel.title, content: host, preferredSize: Size(width: 60, height: 7 + Self.suggestionRows - 3))
    }

    public override func viewDidLoad() {
        viewModel.error.bind(during: lifetime) { [weak self] error in
            self?.errorLabel.text = error ?? ""
            self?.view.setNeedsDisplay()
        }
        viewModel.suggestions.bind(during: lifetime) { [weak self] _ in self?.renderSuggestions() }
        field.onChange = { [weak self] text in
            self?.suggestionsDismissed = false
            self?.suggestionIndex = 0
            self?.viewModel.textChanged(text)
        }
    }

    var keyModes: [KeyMode] { [.text, .prompt] }

    private var suggestionsShown: [PromptSuggestion] {
        suggestionsDismissed ? [] : viewModel.suggestions.value
    }

    private func renderSuggestions() {
        let suggestions = suggestionsShown
        suggestionIndex = min(suggestionIndex, max(0, suggestions.count - 1))
        host?.popup.lines = suggestions.map(\.line)
        host?.popup.selectedIndex = suggestionIndex
        host?.popup.isHidden = suggestions.isEmpty
        view.setNeedsDisplay()
    }

    public override func handle(_ event: KeyEvent) -> Bool {
        let suggestions = suggestionsShown
        if !suggestions.isEmpty {
            switch event {
            case KeyEvent(.down):
                suggestionIndex = (suggestionIndex + 1) % suggestions.count
                renderSuggestions()
                return true
            case KeyEvent(.up):
                suggestionIndex = (suggestionIndex + suggestions.count - 1) % suggestions.count
                renderSuggestions()
                return true
            case KeyEvent(.tab), KeyEvent(.enter):
                let value = suggestions[min(suggestionIndex, suggestions.count - 1)].value
                field.setText(value)
                viewModel.textChanged(value)
                suggestionsDismissed = true
                renderSuggestions()
                return true
            case KeyEvent(.escape):
                suggestionsDismissed = true
                renderSuggestions()
                return true
            default: break
            }
        }
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
