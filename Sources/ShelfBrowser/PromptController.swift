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
    private let hint = HintLine(style: Theme.hint)
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
        hint.hints = PromptViewModel.hintLine(suggesting: false, keys: Theme.keyNames)
        field.isFocused = true
        field.setText(viewModel.initialText)
        guard viewModel.completes else {
            view = Dialog(
                title: viewModel.title, content: StackView(axis: .vertical, [question, field, errorLabel, hint]),
                preferredSize: Size(width: 60, height: 7))
            return
        }
        for view in [question, field] as [View] { view.length = .fixed(1) }
        // Room under the field for the popup, above the error and the foot, which it never
        // covers (the foot says which keys choose, take and close the list); on a short
        // screen the room gives way first.
        let room = View()
        room.length = .flexible()
        let host = PopupHost(stack: StackView(axis: .vertical, [question, field, room, errorLabel, hint]))
        host.anchor = field
        host.floor = errorLabel
        host.popupWidth = .max  // the dialog's width: a long name and its email side by side
        self.host = host
        view = Dialog(
            title: viewModel.title, content: host,
            // Wider than a plain prompt: a name and an email side by side in 80 columns.
            preferredSize: Size(width: 76, height: 7 + Self.suggestionRows))
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
        host?.popup.lines = suggestions.map { SuggestionPopup.Entry(text: $0.line, detail: $0.detail) }
        host?.popup.selectedIndex = suggestionIndex
        host?.popup.total = suggestions.first?.matchCount ?? 0
        host?.popup.isHidden = suggestions.isEmpty
        hint.hints = PromptViewModel.hintLine(suggesting: !suggestions.isEmpty, keys: Theme.keyNames)
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
