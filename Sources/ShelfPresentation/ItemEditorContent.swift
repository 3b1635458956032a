public import ShelfStore

/// A field of the item editor.
public enum ItemEditorField: String, Hashable, Sendable, CaseIterable {
    /// The editor's fields: the title, the notes (any number of lines), the priority (0 to
    /// 3, as typed), the owner's email and the status ("open" or "done").
    case title, notes, priority, owner, status
}

/// A user the editor offers to create because the owner's email belongs to nobody.
public struct NewOwner: Hashable, Sendable {
    /// The email typed as the owner's.
    public let email: String
    /// The name to give them: first guessed from the email, then as typed.
    public let name: String
    /// Why creating them failed (a refused email), or nil.
    public let error: String?
    /// The command that adds them from a shell instead, naming the database in use
    /// (`shelf users add --db …`); nil for a store in memory.
    public let command: String?

    /// A proposal from its parts.
    public init(email: String, name: String, error: String? = nil, command: String? = nil) {
        self.email = email
        self.name = name
        self.error = error
        self.command = command
    }
}

/// What the editor shows: the fields as typed, a message per invalid field, and where
/// saving stands.
public struct ItemEditorContent: Hashable, Sendable {
    /// Whether the editor creates an item or edits a stored one.
    public enum Mode: Hashable, Sendable {
        /// A new item: saving inserts it.
        case create
        /// The stored item with this ID: saving updates it if nobody changed it meanwhile.
        case edit(Item.ID)
    }

    /// Where saving stands.
    public enum Phase: Hashable, Sendable {
        /// The fields can be edited; nothing is being saved.
        case editing
        /// A save is in progress; `save()` does nothing until it ends.
        case saving
        /// Saved; the item's ID.
        case saved(Item.ID)
        /// Someone else saved the item since it was opened. `theirs` is the stored item:
        /// `reload()` takes it (dropping these edits), `overwrite()` saves these edits over it.
        case conflict(theirs: Item)
        /// Saving failed for another reason; the message says what to do. The fields are kept.
        case failed(String)
    }

    /// Creating, or editing the item with the given ID.
    public let mode: Mode
    /// The text of each field as typed.
    public let values: [ItemEditorField: String]
    /// Why a field is invalid, for the fields that are.
    public let errors: [ItemEditorField: String]
    /// Where saving stands: editing, saving, saved, a conflict or a failure.
    public let phase: Phase
    /// Users whose email or name starts with the owner text as typed (letter case ignored),
    /// best first: the email itself, emails, names, then words of names; at most five.
    public let ownerSuggestions: [User]
    /// How many users match the owner text in all (`ownerSuggestions` are the best few).
    public let ownerMatchCount: Int
    /// Set when saving found no user with the owner's email: the editor offers to create
    /// them (`createOwnerAndSave(name:)`) or to go back (`cancelNewOwner()`).
    public let newOwner: NewOwner?
    /// Why there are no owner suggestions (the users could not be read), or nil.
    public let suggestionsProblem: String?

    /// What the last edit of the notes in an outside editor came to, until the next key;
    /// nil when there is nothing to say.
    public let notice: Notice?

    /// A short note for the person, and whether it reports a problem.
    public struct Notice: Hashable, Sendable {
        /// The words.
        public let text: String
        /// True when it says why something did not happen (shown as an error).
        public let isError: Bool

        /// A notice of `text`.
        public init(_ text: String, isError: Bool) {
            self.text = text
            self.isError = isError
        }
    }

    /// Content from its parts, as the editor model produces it; for tests and previews.
    public init(
        mode: Mode, values: [ItemEditorField: String], errors: [ItemEditorField: String], phase: Phase,
        ownerSuggestions: [User] = [], ownerMatchCount: Int? = nil, newOwner: NewOwner? = nil,
        suggestionsProblem: String? = nil, notice: Notice? = nil
    ) {
        self.ownerMatchCount = max(ownerMatchCount ?? 0, ownerSuggestions.count)
        self.mode = mode
        self.values = values
        self.errors = errors
        self.phase = phase
        self.ownerSuggestions = ownerSuggestions
        self.newOwner = newOwner
        self.suggestionsProblem = suggestionsProblem
        self.notice = notice
    }

    /// The text of `field`.
    public subscript(field: ItemEditorField) -> String { values[field] ?? "" }

    /// True when no field has an error.
    public var isValid: Bool { errors.isEmpty }
}

extension ItemEditorContent {
    /// The form's title: "New item" or "Edit item 42".
    public var title: String {
        switch mode {
        case .create: "New item"
        case .edit(let id): "Edit item \(id)"
        }
    }

    /// The line about where saving stands, with `isError` true when it reports a problem:
    /// the question to add an unknown owner (or why adding them failed), the last notice,
    /// why there are no owner suggestions, "Saving…", "Saved.", the conflict, or the failure.
    public var phaseLine: Notice {
        switch phase {
        case .editing:
            if let newOwner {
                return Notice(
                    newOwner.error
                        ?? "No user has the email \(newOwner.email). Add them with this name and save the item?"
                        + (newOwner.command.map { " (From a shell: \($0).)" } ?? ""),
                    isError: newOwner.error != nil)
            }
            if let notice { return notice }
            return Notice(suggestionsProblem ?? "", isError: suggestionsProblem != nil)
        case .saving: return Notice("Saving…", isError: false)
        case .saved: return Notice("Saved.", isError: false)
        case .conflict(let theirs):
            return Notice("Someone else saved this item meanwhile (their title: “\(theirs.title)”).", isError: true)
        case .failed(let message): return Notice(message, isError: true)
        }
    }

    /// The keys that act now, with `focused` the field with the cursor and `suggesting` true
    /// while owner suggestions show, named as `keys` names them: the whole line (see
    /// `hints(focused:suggesting:keys:)` for a line that fits a width).
    public func hint(focused: ItemEditorField, suggesting: Bool, keys: KeyNames = .defaults) -> String {
        KeyHint.line(hints(focused: focused, suggesting: suggesting, keys: keys))
    }

    /// The keys that act now, in the order shown, ranked for a narrow line
    /// (`KeyHint.line(_:width:measure:)`): saving and the way out are kept whole, then moving
    /// to the next field, then the rest.
    public func hints(focused: ItemEditorField, suggesting: Bool, keys: KeyNames = .defaults) -> [KeyHint] {
        let save = keys("editor.save", "Ctrl-S")
        let close = keys("editor.close", "Esc")
        let next = keys("editor.nextField", "Tab")
        let outside = keys("editor.editNotesOutside", "Ctrl-O")
        if case .conflict = phase {
            return [
                KeyHint("\(keys("conflict.reload", "r")) reload theirs (drops your edits)", rank: 1),
                KeyHint("\(keys("conflict.overwrite", "o")) overwrite theirs", rank: 1),
                KeyHint("\(keys("conflict.close", "Esc")) cancel", rank: 1),
            ]
        }
        if newOwner != nil {
            return [KeyHint("Enter add the user and save", rank: 1), KeyHint("\(close) back to the item", rank: 1)]
        }
        if suggesting {
            return [
                KeyHint("↑/↓ choose", rank: 2), KeyHint("\(next) or Enter take", rank: 1),
                KeyHint("\(save) save", rank: 3),
                KeyHint("\(close) close the list", rank: 1),
            ]
        }
        switch focused {
        case .notes:
            return [
                KeyHint("Enter new line", rank: 4), KeyHint("\(save) save", rank: 1),
                KeyHint("\(outside) $EDITOR", rank: 3), KeyHint("\(next) next", rank: 2),
                KeyHint("\(close) cancel", rank: 1),
            ]
        case .status:
            return [
                KeyHint("Space or ←/→ open/done", rank: 2), KeyHint("\(next) next field", rank: 3),
                KeyHint("Enter save", rank: 1), KeyHint("\(close) cancel", rank: 1),
            ]
        case .title, .priority, .owner:
            return [
                KeyHint("\(next) next field", rank: 2), KeyHint("Enter save", rank: 1),
                KeyHint("\(outside) notes in $EDITOR", rank: 3), KeyHint("\(close) cancel", rank: 1),
            ]
        }
    }

    /// A suggested owner as the list of suggestions shows them: "Ada Lovelace <ada@x.io>".
    public static func suggestionLine(_ user: User) -> String {
        "\(user.name) <\(user.email)>"
    }
}
