public import ShelfPresentation
internal import ShelfReactive
public import ShelfTerminal

/// A small form to add a user or change a user's name and email, the store's complaints
/// (a duplicate or refused email) under the field they concern, nothing typed ever lost.
///
/// Tab, Shift-Tab, ↑ and ↓ move between the fields; Enter or Ctrl-S saves; Esc goes back
/// without saving (the users view closes the form).
public final class UserEditorController: Controller, KeyModeReporting {
    private let viewModel: UserEditorViewModel
    private let nameField = TextField(prompt: "Name   ", placeholder: "Ada Lovelace")
    private let emailField = TextField(prompt: "Email  ", placeholder: "ada@example.com")
    private let nameError = Label("", style: Theme.error)
    private let emailError = Label("", style: Theme.error)
    private let phaseLabel = Label()
    private let hintLabel = HintLine(style: Theme.hint)
    private var focusIndex = 0
    /// The fields over the phase and hint lines, which stay when the screen is short.
    private var form: ScrollingForm?
    /// Called with each failure the form shows (a save refused), once while it shows: the
    /// browser keeps it for `?` and says it again when it ends.
    public var onFailure: (@MainActor (String) -> Void)?
    /// The failure shown and already given to `onFailure`.
    private var reportedFailure: String?
    /// The phase line's whole text; `phaseLabel` shows it fitted to its rows.
    private var phaseText = ""
    /// The rows of the phase line: two, more for a long failure when the screen has them.
    private let phaseMessage = DialogMessage(least: 2, dialogHeight: 10)

    public init(viewModel: UserEditorViewModel) {
        self.viewModel = viewModel
        viewModel.keys = Theme.keyNames
        super.init()
    }

    public override func loadView() {
        phaseLabel.wraps = true
        phaseLabel.length = .fixed(2)
        hintLabel.hints = UserEditorContent.hintList(keys: Theme.keyNames)
        // Hostile round 11: a stack cut from the bottom lost the hint line at 40×8; the form
        // keeps its foot, and the empty error lines give up their rows first.
        let form = ScrollingForm(
            groups: [[nameField, nameError], [emailField, emailError]], foot: [phaseLabel, hintLabel])
        self.form = form
        let dialog = Dialog(
            title: viewModel.state.value.title, content: form,
            preferredSize: Size(width: 64, height: phaseMessage.dialogHeight))
        dialog.extraHeight = { [weak self] room in
            guard let self else { return 0 }
            let rows = phaseMessage.rows(for: phaseText, room: room)
            phaseLabel.length = .fixed(rows)
            phaseLabel.text = DialogMessage.fit(phaseText, width: max(1, room.width - 2), rows: rows)
            return rows - phaseMessage.least
        }
        view = dialog
    }

    public override func viewDidLoad() {
        let content = viewModel.state.value
        nameField.setText(content[.name])
        emailField.setText(content[.email])
        nameField.onChange = { [viewModel] text in viewModel.update(.name, to: text) }
        emailField.onChange = { [viewModel] text in viewModel.update(.email, to: text) }
        focus(0)
        viewModel.state.bind(during: lifetime) { [weak self] content in self?.render(content) }
    }

    private func render(_ content: UserEditorContent) {
        nameError.text = content.errors[.name].map { "       " + $0 } ?? ""
        emailError.text = content.errors[.email].map { "       " + $0 } ?? ""
        phaseLabel.style = content.isFailure ? Theme.error : .plain
        phaseText = content.phaseText
        if content.isFailure, !content.phaseText.isEmpty {
            if content.phaseText != reportedFailure { onFailure?(content.phaseText) }
            reportedFailure = content.phaseText
        } else {
            reportedFailure = nil
        }
        view.setNeedsDisplay()
    }

    private func focus(_ index: Int) {
        focusIndex = (index + 2) % 2
        nameField.isFocused = focusIndex == 0
        emailField.isFocused = focusIndex == 1
        form?.focusedGroup = focusIndex
    }

    var keyModes: [KeyMode] { [.text, .userForm] }

    public override func handle(_ event: KeyEvent) -> Bool {
        switch event {
        case KeyEvent(.tab), KeyEvent(.down): focus(focusIndex + 1)
        case KeyEvent(.tab, modifiers: .shift), KeyEvent(.up): focus(focusIndex - 1)
        case KeyEvent(.enter), .control("s"): viewModel.save()
        case KeyEvent(.escape), .control("c"): return false  // the users view closes the form
        default: _ = (focusIndex == 0 ? nameField : emailField).handle(event)
        }
        return true
    }

    public override func handlePaste(_ text: String) -> Bool {
        (focusIndex == 0 ? nameField : emailField).paste(text)
        return true
    }
}
