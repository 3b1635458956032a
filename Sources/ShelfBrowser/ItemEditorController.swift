internal import Foundation
public import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
public import ShelfTerminal

/// A form to create or edit an item: title, status, priority, owner (completed from the
/// users as it is typed) and notes of many lines, the reason under each invalid field, and
/// prompts when the owner is nobody yet or someone else saved the item first.
///
/// Keys: Tab and Shift-Tab (or ↓ and ↑ outside the notes) move between fields; Ctrl-S saves
/// from any field, Enter saves from a one-line field and starts a new line in the notes;
/// Space or ←/→ switch the status; in the owner field ↑/↓ choose a suggested user and Tab or
/// Enter take it; Ctrl-O edits the notes in `$VISUAL`/`$EDITOR` (else `vi`); Esc closes the
/// suggestions, else goes back to the list without saving. When the owner's email belongs to
/// nobody, saving asks for their name: Enter adds the user and saves the item, Esc goes back
/// to the form. In a conflict, r reloads their version and o overwrites it.
public final class ItemEditorController: Controller, KeyModeReporting {
    private let viewModel: ItemEditorViewModel

    private let titleField = TextField(prompt: "Title     ", placeholder: "what needs doing")
    private let statusField = ChoiceField(prompt: "Status    ")
    private let priorityField = TextField(prompt: "Priority  ", placeholder: "0 none … 3 high")
    private let ownerField = TextField(prompt: "Owner     ", placeholder: "owner's email or name")
    private let notesArea = TextArea(prompt: "Notes     ", placeholder: "optional; Enter starts a new line")
    private lazy var errorLabels: [ItemEditorField: Label] = Dictionary(
        uniqueKeysWithValues: Self.order.map { ($0, Label("", style: Theme.error)) })
    private let newOwnerField = TextField(prompt: "Name      ")
    private let phaseLabel = Label()
    private let hintLine = HintLine(style: Theme.hint)
    private var body: PopupHost?
    private var form: ScrollingForm?
    private var focusIndex = 0
    /// The suggestion chosen with ↑/↓.
    private var suggestionIndex = 0
    /// True once a suggestion was taken or Esc closed the list, until the owner is typed in.
    private var suggestionsDismissed = false
    /// Called with each failure the editor shows (a save refused, Ctrl-O's editor not run),
    /// once while it shows: the browser keeps it for `?` and says it again when it ends.
    public var onFailure: (@MainActor (String) -> Void)?
    /// The failure shown and already given to `onFailure`.
    private var reportedFailure: String?
    /// The rows of the phase line: three, more for a long failure when the screen has them.
    private let phaseMessage = DialogMessage(least: 3, dialogHeight: 22)

    /// The fields in form order (Tab order).
    static let order: [ItemEditorField] = [.title, .status, .priority, .owner, .notes]

    public init(viewModel: ItemEditorViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    private var focusedField: ItemEditorField { Self.order[focusIndex] }

    public override func loadView() {
        // Each field with the line of its error scrolls as one when the form is taller than
        // the screen leaves it; the new owner's name, the phase and the hints stay at the foot.
        let groups = Self.order.map { field in [input(for: field), errorLabels[field] ?? Label()] }
        notesArea.length = .minimum(3)
        newOwnerField.isHidden = true
        phaseLabel.wraps = true
        phaseLabel.length = .fixed(3)
        let form = ScrollingForm(groups: groups, foot: [newOwnerField, phaseLabel, hintLine])
        self.form = form
        let host = PopupHost(stack: form)
        host.anchor = ownerField
        host.floor = hintLine
        host.anchorOffset = DisplayWidth.of(ownerField.prompt) - 1
        body = host
        let dialog = Dialog(
            title: viewModel.state.value.title, content: host,
            preferredSize: Size(width: 72, height: phaseMessage.dialogHeight))
        dialog.extraHeight = { [weak self] room in self?.fitPhase(room: room) ?? 0 }
        view = dialog
    }

    private func input(for field: ItemEditorField) -> View {
        switch field {
        case .title: titleField
        case .status: statusField
        case .priority: priorityField
        case .owner: ownerField
        case .notes: notesArea
        }
    }

    public override func viewDidLoad() {
        let content = viewModel.state.value
        for (field, input) in [(ItemEditorField.title, titleField), (.priority, priorityField), (.owner, ownerField)] {
            input.setText(content[field])
            input.onChange = { [weak self] text in
                if field == .owner {
                    self?.suggestionsDismissed = false
                    self?.suggestionIndex = 0
                }
                self?.viewModel.update(field, to: text)
            }
        }
        notesArea.setText(content[.notes])
        notesInModel = content[.notes]
        notesArea.onEdit = { [weak self] in self?.notesEdited() }
        // Hostile round 11: typing stopped at the limit without a word. The store has no limit
        // on notes, so Ctrl-O's longer text is saved; the message says so.
        notesArea.onFull = { [weak self] in
            guard let self else { return }
            viewModel.notesNotEdited(
                "The notes hold \(Formatting.count(notesArea.maximumLength)) characters, the most typed here; what went "
                    + "past that was not typed. \(Theme.keyNames("editor.editNotesOutside", "Ctrl-O")) edits longer notes in "
                    + "$VISUAL or $EDITOR.")
        }
        statusField.note = "Space or ←/→ to switch"
        focus(0)
        viewModel.state.bind(during: lifetime) { [weak self] content in self?.render(content) }
    }

    // MARK: - Notes

    /// The notes as the model last had them from this editor (or gave them).
    private var notesInModel = ""
    /// Gives the notes to the model once typing pauses: making the whole text and checking it
    /// costs in proportion to the notes, so it is not done for every key of a long text.
    private var pendingNotes: Task<Void, Never>?
    /// How long typing in the notes pauses before the model gets them.
    static let notesDelay: Duration = .milliseconds(150)

    /// Keys that act on the whole item from the notes: save, edit outside, close, leave.
    private static let wholeItemKeys: Set<KeyEvent> = [
        .control("s"), .control("o"), .control("c"), KeyEvent(.escape), KeyEvent(.tab),
        KeyEvent(.tab, modifiers: .shift),
    ]

    private func notesEdited() {
        pendingNotes?.cancel()
        pendingNotes = Task { [weak self] in
            try? await Task.sleep(for: Self.notesDelay)
            guard !Task.isCancelled else { return }
            self?.flushNotes()
        }
    }

    /// Gives the notes typed so far to the model now (before a save, or leaving the notes).
    private func flushNotes() {
        guard let pending = pendingNotes else { return }
        pending.cancel()
        pendingNotes = nil
        let text = notesArea.text
        notesInModel = text
        viewModel.update(.notes, to: text)
    }

    // MARK: - Rendering

    private var suggestionsShown: [User] {
        let content = viewModel.state.value
        guard focusedField == .owner, !suggestionsDismissed, content.newOwner == nil else { return [] }
        let typed = content[.owner].trimmingCharacters(in: .whitespaces).lowercased()
        let suggestions = content.ownerSuggestions
        if suggestions.count == 1, suggestions[0].email.lowercased() == typed { return [] }
        return suggestions
    }

    private func render(_ content: ItemEditorContent) {
        for field in Self.order {
            errorLabels[field]?.text = content.errors[field].map { "          " + $0 } ?? ""
        }
        form?.focusedGroup = focusIndex
        // Values that changed in the model (a reload) replace what is in the fields.
        for (field, input) in [(ItemEditorField.title, titleField), (.priority, priorityField), (.owner, ownerField)]
        where content[field] != input.text {
            input.setText(content[field])
        }
        // The notes the model has, compared with what this editor last gave it (the same
        // string, so comparing is quick however long they are): changed by the model (a reload,
        // an edit outside), they replace what is in the area.
        if content[.notes] != notesInModel {
            pendingNotes?.cancel()
            pendingNotes = nil
            notesInModel = content[.notes]
            notesArea.setText(content[.notes])
        }
        statusField.value = content[.status].isEmpty ? Item.Status.open.rawValue : content[.status]

        let suggestions = suggestionsShown
        suggestionIndex = min(suggestionIndex, max(0, suggestions.count - 1))
        body?.popup.lines = suggestions.map { SuggestionPopup.Entry(text: $0.name, detail: $0.email) }
        body?.popup.selectedIndex = suggestionIndex
        body?.popup.total = suggestions.isEmpty ? 0 : content.ownerMatchCount
        body?.popup.isHidden = suggestions.isEmpty

        let asksForOwner = content.newOwner != nil
        newOwnerField.isHidden = !asksForOwner
        if let newOwner = content.newOwner, !newOwnerField.isFocused {
            newOwnerField.setText(newOwner.name)
        }
        newOwnerField.isFocused = asksForOwner
        for field in Self.order { setFocus(field, focusedField == field && !asksForOwner) }

        hintLine.hints = content.hints(focused: focusedField, suggesting: !suggestions.isEmpty, keys: Theme.keyNames)
        let line = content.phaseLine
        phaseLabel.style = line.isError ? Theme.error : .plain
        phaseText = line.text
        if line.isError, !line.text.isEmpty {
            if line.text != reportedFailure { onFailure?(line.text) }
            reportedFailure = line.text
        } else {
            reportedFailure = nil
        }
        view.setNeedsDisplay()
    }

    /// The phase line's whole text; `phaseLabel` shows it fitted to its rows.
    private var phaseText = ""

    /// Gives the phase line the rows its text needs in a dialog as wide as `room` on a screen
    /// as high, fits the text to them, and returns the rows added to the dialog.
    private func fitPhase(room: Size) -> Int {
        let rows = phaseMessage.rows(for: phaseText, room: room)
        phaseLabel.length = .fixed(rows)
        phaseLabel.text = DialogMessage.fit(phaseText, width: max(1, room.width - 2), rows: rows)
        return rows - phaseMessage.least
    }

    private func setFocus(_ field: ItemEditorField, _ focused: Bool) {
        switch field {
        case .title: titleField.isFocused = focused
        case .status: statusField.isFocused = focused
        case .priority: priorityField.isFocused = focused
        case .owner: ownerField.isFocused = focused
        case .notes: notesArea.isFocused = focused
        }
    }

    private func focus(_ index: Int) {
        flushNotes()
        focusIndex = (index + Self.order.count) % Self.order.count
        suggestionsDismissed = false
        render(viewModel.state.value)
    }

    // MARK: - Keys

    /// The conflict's keys after a save lost to another; the prompt's while naming a new
    /// owner; else the editor's, with the text keys in a text field or the notes.
    var keyModes: [KeyMode] {
        let content = viewModel.state.value
        if case .conflict = content.phase { return [.conflict] }
        if content.newOwner != nil { return [.text, .prompt] }
        return focusedField == .status ? [.editor] : [.text, .editor]
    }

    public override func handle(_ event: KeyEvent) -> Bool {
        // Whatever this key does to the whole item (save, overwrite, close) sees the notes typed.
        if focusedField != .notes || Self.wholeItemKeys.contains(event) { flushNotes() }
        let content = viewModel.state.value
        if case .conflict = content.phase {
            switch event {
            case .character("r"): viewModel.reload()
            case .character("o"): viewModel.overwrite()
            case KeyEvent(.escape): return false
            default: break
            }
            return true
        }
        if content.newOwner != nil { return handleNewOwnerKey(event) }
        viewModel.clearNotice()
        if !suggestionsShown.isEmpty, handleSuggestionKey(event) { return true }
        switch event {
        case .control("s"): viewModel.save()
        case .control("o"): editNotesOutside()
        case KeyEvent(.escape), .control("c"): return false  // the browser closes the editor
        case KeyEvent(.tab): focus(focusIndex + 1)
        case KeyEvent(.tab, modifiers: .shift): focus(focusIndex - 1)
        default:
            switch focusedField {
            case .notes:
                if !notesArea.handle(event) {
                    if event == KeyEvent(.up) { focus(focusIndex - 1) }
                    if event == KeyEvent(.down) { focus(focusIndex + 1) }
                }
            case .status:
                switch event {
                case .character(" "), KeyEvent(.left), KeyEvent(.right): viewModel.toggleStatus()
                case KeyEvent(.enter): viewModel.save()
                case KeyEvent(.down): focus(focusIndex + 1)
                case KeyEvent(.up): focus(focusIndex - 1)
                default: break
                }
            default:
                switch event {
                case KeyEvent(.enter): viewModel.save()
                case KeyEvent(.down): focus(focusIndex + 1)
                case KeyEvent(.up): focus(focusIndex - 1)
                default: _ = textField(for: focusedField)?.handle(event)
                }
            }
        }
        return true  // modal: keys never reach the list behind it
    }

    private func handleSuggestionKey(_ event: KeyEvent) -> Bool {
        let suggestions = suggestionsShown
        switch event {
        case KeyEvent(.down): suggestionIndex = (suggestionIndex + 1) % suggestions.count
        case KeyEvent(.up): suggestionIndex = (suggestionIndex + suggestions.count - 1) % suggestions.count
        case KeyEvent(.tab), KeyEvent(.enter):
            let email = suggestions[min(suggestionIndex, suggestions.count - 1)].email
            suggestionsDismissed = true
            ownerField.setText(email)
            viewModel.update(.owner, to: email)
        case KeyEvent(.escape): suggestionsDismissed = true
        default: return false
        }
        render(viewModel.state.value)
        return true
    }

    private func handleNewOwnerKey(_ event: KeyEvent) -> Bool {
        switch event {
        case KeyEvent(.enter), .control("s"): viewModel.createOwnerAndSave(name: newOwnerField.text)
        case KeyEvent(.escape):
            viewModel.cancelNewOwner()
            focusIndex = Self.order.firstIndex(of: .owner) ?? focusIndex
            render(viewModel.state.value)
        case .control("c"): return false
        default: _ = newOwnerField.handle(event)
        }
        return true
    }

    private func textField(for field: ItemEditorField) -> TextField? {
        switch field {
        case .title: titleField
        case .priority: priorityField
        case .owner: ownerField
        case .status, .notes: nil
        }
    }

    /// Ctrl-O: the notes in the person's editor, the screen left meanwhile and restored after.
    private func editNotesOutside() {
        flushNotes()
        switch ExternalEditor.edit(notesArea.text) {
        case .edited(let text):
            notesArea.setText(text)
            notesInModel = text
            viewModel.notesEdited(outside: text)
        case .unchanged(let reason):
            viewModel.notesNotEdited(reason)
        }
    }

    public override func handlePaste(_ text: String) -> Bool {
        if viewModel.state.value.newOwner != nil {
            newOwnerField.paste(text)
        } else if focusedField == .notes {
            notesArea.paste(text)
        } else {
            textField(for: focusedField)?.paste(text)
        }
        return true
    }
}
