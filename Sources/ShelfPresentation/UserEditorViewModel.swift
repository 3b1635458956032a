internal import Foundation
public import ShelfReactive
public import ShelfStore

/// A field of the user editor: the name, and the email.
public enum UserEditorField: String, Hashable, Sendable, CaseIterable {
    /// The user's name (required) and email (required, unique letter case ignored).
    case name, email
}

/// What the user editor shows: the fields as typed, a message per invalid field, and where
/// saving stands.
public struct UserEditorContent: Hashable, Sendable {
    /// Whether the editor adds a user or edits a stored one.
    public enum Mode: Hashable, Sendable {
        /// A new user: saving inserts them.
        case create
        /// The stored user with this ID: saving changes their name and email.
        case edit(User.ID)
    }

    /// Where saving stands.
    public enum Phase: Hashable, Sendable {
        /// The fields can be edited; nothing is being saved.
        case editing
        /// A save is in progress; `save()` does nothing until it ends.
        case saving
        /// Saved; the user's ID.
        case saved(User.ID)
        /// Saving failed for a reason no field explains; the message says what to do. The
        /// fields are kept.
        case failed(String)
    }

    /// Adding, or editing the user with the given ID.
    public let mode: Mode
    /// The text of each field as typed.
    public let values: [UserEditorField: String]
    /// Why a field is invalid, for the fields that are (a duplicate email included).
    public let errors: [UserEditorField: String]
    /// Where saving stands.
    public let phase: Phase

    /// The form's title: "Add user" or "Edit user".
    public var title: String {
        switch mode {
        case .create: "Add user"
        case .edit: "Edit user"
        }
    }

    /// The line about where saving stands: "", "Saving…", "Saved." or why it failed (see
    /// `isFailure`).
    public var phaseText: String {
        switch phase {
        case .editing: ""
        case .saving: "Saving…"
        case .saved: "Saved."
        case .failed(let message): message
        }
    }

    /// True when `phaseText` says why saving failed.
    public var isFailure: Bool {
        if case .failed = phase { return true }
        return false
    }

    /// The form's keys, for its foot, named as `keys` names them.
    public static func hints(keys: KeyNames = .defaults) -> String {
        KeyHint.line(hintList(keys: keys))
    }

    /// The hints of `hints(keys:)`, ranked: saving and the way out kept whole.
    public static func hintList(keys: KeyNames = .defaults) -> [KeyHint] {
        [
            KeyHint("\(keys("user-form.nextField", "Tab")) next field", rank: 2),
            KeyHint("\(keys("user-form.save", "Enter")) save", rank: 1),
            KeyHint("\(keys("user-form.close", "Esc")) cancel", rank: 1),
        ]
    }

    /// Content from its parts, as the editor model produces it; for tests and previews.
    public init(mode: Mode, values: [UserEditorField: String], errors: [UserEditorField: String], phase: Phase) {
        self.mode = mode
        self.values = values
        self.errors = errors
        self.phase = phase
    }

    /// The text of `field`.
    public subscript(field: UserEditorField) -> String { values[field] ?? "" }
}

/// Adds a user or changes a user's name and email, with the store's rules shown inline.
///
/// Nothing typed is ever lost: a duplicate or refused email shows under the email field with
/// the fields as they were. Main actor.
@MainActor
public final class UserEditorViewModel {
    /// What the editor shows.
    public let state: Property<UserEditorContent>

    private let store: Store
    private let mutableState: MutableProperty<UserEditorContent>
    private var base: User?
    private var showsAllErrors = false
    private let tasks = IntentTracker()
    /// How messages name keys: the browser sets the keys in force.
    public var keys = KeyNames.defaults

    /// An editor for a new user, pre-filled with `name` and `email`.
    public init(store: Store, name: String = "", email: String = "") {
        self.store = store
        mutableState = MutableProperty(
            UserEditorContent(mode: .create, values: [.name: name, .email: email], errors: [:], phase: .editing))
        state = mutableState.property
    }

    /// An editor for the stored `user`.
    public init(store: Store, editing user: User) {
        self.store = store
        base = user
        mutableState = MutableProperty(
            UserEditorContent(
                mode: .edit(user.id), values: [.name: user.name, .email: user.email], errors: [:], phase: .editing))
        state = mutableState.property
    }

    /// Sets a field's text and checks it again (before the first save, only that field).
    public func update(_ field: UserEditorField, to text: String) {
        var values = mutableState.value.values
        values[field] = text
        var errors = Self.validate(values)
        if !showsAllErrors { errors = errors.filter { $0.key == field } }
        set(values: values, errors: errors, phase: .editing)
    }

    /// Validates and saves: inserts a new user, or updates the edited one. On success the
    /// phase becomes `.saved`; a duplicate or refused email becomes the email field's error.
    @discardableResult
    public func save() -> Intent {
        guard mutableState.value.phase != .saving else { return .done }
        showsAllErrors = true
        let values = mutableState.value.values
        let errors = Self.validate(values)
        guard errors.isEmpty else {
            set(values: values, errors: errors, phase: .editing)
            return .done
        }
        set(values: values, errors: [:], phase: .saving)
        let store = self.store
        let base = self.base
        let name = (values[.name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let email = (values[.email] ?? "").trimmingCharacters(in: .whitespaces)
        return tasks.start(
            { [weak self] in
                if var user = base {
                    user.name = name
                    user.email = email
                    try await store.users.update(user)
                    self?.set(values: values, errors: [:], phase: .saved(user.id))
                } else {
                    let id = try await store.users.insert(NewUser(name: name, email: email))
                    self?.set(values: values, errors: [:], phase: .saved(id))
                }
            },
            onFailure: { [weak self] error in
                self?.set(
                    values: values, errors: Self.fieldErrors(for: error, email: email),
                    phase: Self.phase(for: error, keys: self?.keys ?? .defaults))
            })
    }

    private func set(
        values: [UserEditorField: String], errors: [UserEditorField: String], phase: UserEditorContent.Phase
    ) {
        mutableState.value = UserEditorContent(
            mode: mutableState.value.mode, values: values, errors: errors, phase: phase)
    }

    // MARK: - Pure rules

    /// The message for each invalid field: a name is required, and an email, which has an @.
    /// Whether the email is free and acceptable to the store is checked when saving.
    public nonisolated static func validate(_ values: [UserEditorField: String]) -> [UserEditorField: String] {
        var errors: [UserEditorField: String] = [:]
        if (values[.name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            errors[.name] = "A name is required."
        }
        let email = (values[.email] ?? "").trimmingCharacters(in: .whitespaces)
        if email.isEmpty {
            errors[.email] = "An email is required, like ada@example.com."
        } else if !email.contains("@") {
            errors[.email] = "An email has an @, like ada@example.com."
        }
        return errors
    }

    /// The field error a failed save shows: a duplicate or refused email under the email.
    nonisolated static func fieldErrors(for error: any Error, email: String) -> [UserEditorField: String] {
        guard let error = error as? StoreError else { return [:] }
        switch error.code {
        case .duplicateEmail: return [.email: "Another user already has the email \(email); type another."]
        case .invalidValue: return [.email: Self.sentence(error.message)]
        default: return [:]
        }
    }

    /// The phase after a failed save: editing when a field shows the reason, else failed.
    /// The way back is named as `keys` names it.
    nonisolated static func phase(for error: any Error, keys: KeyNames = .defaults) -> UserEditorContent.Phase {
        switch (error as? StoreError)?.code {
        case .duplicateEmail, .invalidValue: .editing
        case .notFound:
            .failed(
                "This user was removed by someone else; nothing was saved. \(keys("user-form.close", "Esc")) goes back."
            )
        default: .failed("Could not save the user: \(error)")
        }
    }

    nonisolated static func sentence(_ message: String) -> String {
        guard let first = message.first else { return message }
        return first.uppercased() + message.dropFirst() + (message.hasSuffix(".") ? "" : ".")
    }

    /// A name guessed from an email's local part: "ada.lovelace@x.io" → "Ada Lovelace".
    public nonisolated static func suggestedName(forEmail email: String) -> String {
        let local = email.trimmingCharacters(in: .whitespaces).split(separator: "@").first.map(String.init) ?? ""
        return local.split(whereSeparator: { ".-_+".contains($0) })
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }
            .joined(separator: " ")
    }
}
