internal import Foundation
public import ShelfReactive
public import ShelfStore

/// Creates or edits one item, with validation per field and optimistic concurrency.
///
/// Saving an edit writes only if the item is still at the version that was opened; when
/// another edit got there first, the phase becomes `.conflict` and nothing is written until
/// the user picks `reload()` or `overwrite()`: no edit is lost silently. When the owner's
/// email belongs to nobody, saving sets `newOwner` and `createOwnerAndSave(name:)` adds the
/// user and saves the item in one go. The users are followed live for the owner field's
/// completion (`ownerSuggestions`). Main actor.
@MainActor
public final class ItemEditorViewModel {
    /// What the editor shows.
    public let state: Property<ItemEditorContent>

    /// Longest title accepted, in characters.
    public nonisolated static let maximumTitleLength = TextLimits.title
    /// The most owner suggestions offered at once.
    public nonisolated static let maximumSuggestions = 5

    private let store: Store
    private let mutableState: MutableProperty<ItemEditorContent>
    /// The stored item the edit is based on (nil when creating).
    private var base: Item?

    /// What a save wrote, for undo: the item it inserted, or the stored item it was written
    /// over (the editor's, or theirs after a conflict) and the item as saved.
    public enum Write: Hashable, Sendable {
        /// A new item was inserted with this ID.
        case inserted(Item.ID)
        /// `previous` was stored, and the save replaced it with `saved` (version checked, so
        /// nothing came between).
        case updated(previous: Item, saved: Item)
    }

    /// The last save's write, once the phase is `.saved`; nil before.
    public private(set) var lastWrite: Write?
    /// True once saving was attempted: from then on every field shows its errors.
    private var showsAllErrors = false
    /// Every user, for the owner's completion.
    private var users: [User] = []
    private let token = Lifetime.Token()
    private let tasks = IntentTracker()
    private var usersObservation: Observation?
    /// The read of the users that `init` started.
    private var usersIntent = Intent.done

    /// An editor for a new item; `ownerEmail` pre-fills the owner.
    public init(store: Store, ownerEmail: String = "") {
        self.store = store
        let values: [ItemEditorField: String] = [
            .title: "", .notes: "", .priority: "0", .owner: ownerEmail, .status: Item.Status.open.rawValue,
        ]
        mutableState = MutableProperty(ItemEditorContent(mode: .create, values: values, errors: [:], phase: .editing))
        state = mutableState.property
        usersIntent = followUsers()
    }

    /// An editor for `item`, owned by the user with `ownerEmail`.
    public init(store: Store, editing item: Item, ownerEmail: String) {
        self.store = store
        base = item
        mutableState = MutableProperty(
            ItemEditorContent(
                mode: .edit(item.id), values: Self.values(of: item, ownerEmail: ownerEmail), errors: [:],
                phase: .editing))
        state = mutableState.property
        usersIntent = followUsers()
    }

    /// Follows the users for the owner's completion. Without them there is no completion,
    /// but typing an email still works: a failure says so in `ItemEditorContent.suggestionsProblem`.
    private func followUsers() -> Intent {
        let store = self.store
        return tasks.start(
            key: "users", { try await store.liveUsers() }, then: { [weak self] users in self?.follow(users) },
            onFailure: { [weak self] error in
                guard let self else { return }
                usersProblem = "No suggestions for the owner: could not read the users (\(error))."
                let content = mutableState.value
                set(
                    values: content.values, errors: content.errors, phase: content.phase, newOwner: content.newOwner,
                    notice: content.notice)
            })
    }

    /// Waits until the users for the owner's completion are read (or failed to be).
    public func usersLoaded() async {
        await usersIntent.finished()
    }

    /// Why the owner's completion is missing, or nil.
    private var usersProblem: String?

    private func follow(_ live: Property<LiveResult<[User]>>) {
        usersObservation = live.observeOutsideIntents(during: token.lifetime) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let users):
                self.users = users
                usersProblem = nil
            case .failure(let error):
                // The last users stay; the query retries by itself, and a success clears this.
                usersProblem = "Owner suggestions may be out of date: could not read the users (\(error))."
            }
            let content = mutableState.value
            set(
                values: content.values, errors: content.errors, phase: content.phase, newOwner: content.newOwner,
                notice: content.notice)
        }
    }

    /// Sets a field's text and checks it again. Editing the owner drops a pending `newOwner`.
    public func update(_ field: ItemEditorField, to text: String) {
        var values = mutableState.value.values
        values[field] = text
        var errors = Self.validate(values)
        if !showsAllErrors {
            // Before the first save, only fields that were touched and are wrong complain.
            errors = errors.filter { $0.key == field }
        }
        if errors[.owner] == nil, let ownerError = mutableState.value.errors[.owner], field != .owner {
            errors[.owner] = ownerError  // keep "no such user" until the owner is edited
        }
        let newOwner = field == .owner ? nil : mutableState.value.newOwner
        set(values: values, errors: errors, phase: .editing, newOwner: newOwner)
    }

    /// Flips the status between open and done.
    public func toggleStatus() {
        let current = Item.Status(rawValue: mutableState.value[.status]) ?? .open
        update(.status, to: (current == .open ? Item.Status.done : .open).rawValue)
    }

    /// Validates and saves. On success the phase becomes `.saved`; when the owner's email
    /// belongs to nobody, `newOwner` is set and nothing is written.
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
        return write(values, over: base)
    }

    /// Adds the user `newOwner` proposes, named `name`, then saves the item owned by them —
    /// one step for the person typing. When someone added that email meanwhile, the item goes
    /// to that user. A refused name or email keeps the proposal with its `error` and every
    /// field as typed; nothing is written.
    @discardableResult
    public func createOwnerAndSave(name: String) -> Intent {
        guard let proposal = mutableState.value.newOwner, mutableState.value.phase != .saving else { return .done }
        let values = mutableState.value.values
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            set(
                values: values, errors: mutableState.value.errors, phase: .editing,
                newOwner: NewOwner(
                    email: proposal.email, name: name, error: "A name is required.", command: proposal.command))
            return .done
        }
        set(
            values: values, errors: [:], phase: .saving,
            newOwner: NewOwner(email: proposal.email, name: name, command: proposal.command))
        let store = self.store
        let base = self.base
        return tasks.start(
            { [weak self] in
                do {
                    try await store.users.insert(NewUser(name: trimmed, email: proposal.email))
                } catch let error as StoreError where error.code == .duplicateEmail {
                    // Added meanwhile by someone else: that user owns the item.
                }
                // Started from this task, the save belongs to this intent.
                self?.write(values, over: base)
            },
            onFailure: { [weak self] error in
                let message = UserEditorViewModel.sentence((error as? StoreError)?.message ?? "\(error)")
                self?.set(
                    values: values, errors: [:], phase: .editing,
                    newOwner: NewOwner(email: proposal.email, name: name, error: message, command: proposal.command))
            })
    }

    /// Leaves the proposal to create the owner: back to editing, every field as typed.
    public func cancelNewOwner() {
        let content = mutableState.value
        guard content.newOwner != nil, content.phase != .saving else { return }
        set(values: content.values, errors: content.errors, phase: .editing, newOwner: nil)
    }

    /// After a conflict: drops these edits and shows the stored item.
    @discardableResult
    public func reload() -> Intent {
        guard case .conflict(let theirs) = mutableState.value.phase else { return .done }
        base = theirs
        let store = self.store
        let values = mutableState.value.values
        return tasks.start(
            { [weak self] in
                // Their owner deleted meanwhile: the owner typed stays, and saving says so.
                let email = try await store.users.user(id: theirs.userID)?.email ?? values[.owner] ?? ""
                self?.set(values: Self.values(of: theirs, ownerEmail: email), errors: [:], phase: .editing)
            },
            onFailure: { [weak self] error in
                self?.set(
                    values: Self.values(of: theirs, ownerEmail: values[.owner] ?? ""), errors: [:],
                    phase: .failed("Took their version, but could not read its owner (\(error)); check the owner."))
            })
    }

    /// After a conflict: saves these edits over the stored item.
    @discardableResult
    public func overwrite() -> Intent {
        guard case .conflict(let theirs) = mutableState.value.phase else { return .done }
        base = theirs
        let values = mutableState.value.values
        set(values: values, errors: [:], phase: .saving)
        return write(values, over: theirs)
    }

    @discardableResult
    private func write(_ values: [ItemEditorField: String], over base: Item?) -> Intent {
        tasks.start(
            { [weak self] in try await self?.save(values, over: base) },
            onFailure: { [weak self] error in
                self?.set(values: values, errors: [:], phase: .failed("Could not save: \(error)"))
            })
    }

    /// Saves `values` over `base` (inserts them when nil) and shows the outcome; throws what
    /// has no better words than "could not save".
    private func save(_ values: [ItemEditorField: String], over base: Item?) async throws {
        let email = (values[.owner] ?? "").trimmingCharacters(in: .whitespaces)
        let deleted = "The item was deleted by someone else; these edits were not saved."
        do {
            guard let owner = try await store.users.user(email: email) else {
                set(
                    values: values, errors: [.owner: "No user has the email \(email); add the user first."],
                    phase: .editing,
                    newOwner: NewOwner(
                        email: email, name: UserEditorViewModel.suggestedName(forEmail: email),
                        command: StoreHints.addUserCommand(location: store.shareableLocation, email: email)))
                return
            }
            let fields = Self.fields(values)
            if var item = base {
                item.title = fields.title
                item.notes = fields.notes
                item.priority = fields.priority
                item.status = fields.status
                item.userID = owner.id
                let saved = try await store.items.update(item)
                if let previous = base { lastWrite = .updated(previous: previous, saved: saved) }
                self.saved(saved.id, values: values)
            } else {
                let id = try await store.items.insert(
                    NewItem(
                        userID: owner.id, title: fields.title, notes: fields.notes, status: fields.status,
                        priority: fields.priority))
                lastWrite = .inserted(id)
                saved(id, values: values)
            }
        } catch let error as StoreError where error.code == .conflict {
            guard let id = base?.id else { throw error }
            // Theirs is read to show it; failing that, the conflict still shows as a failure.
            if let theirs = try await store.items.item(id: id) {
                set(values: values, errors: [:], phase: .conflict(theirs: theirs))
            } else {
                set(values: values, errors: [:], phase: .failed(deleted))
            }
        } catch let error as StoreError where error.code == .notFound {
            set(values: values, errors: [:], phase: .failed(deleted))
        }
    }

    private func saved(_ id: Item.ID, values: [ItemEditorField: String]) {
        set(values: values, errors: [:], phase: .saved(id))
    }

    private func set(
        values: [ItemEditorField: String], errors: [ItemEditorField: String], phase: ItemEditorContent.Phase,
        newOwner: NewOwner? = nil, notice: ItemEditorContent.Notice? = nil
    ) {
        let matches = Self.ownerMatches(for: values[.owner] ?? "", among: users)
        mutableState.value = ItemEditorContent(
            mode: mutableState.value.mode, values: values, errors: errors, phase: phase,
            ownerSuggestions: matches.best, ownerMatchCount: matches.count, newOwner: newOwner,
            suggestionsProblem: usersProblem, notice: notice)
    }

    // MARK: - The notes in an outside editor

    /// The notes came back from an outside editor as `text`: they replace the field, and the
    /// notice says so until `clearNotice()`.
    public func notesEdited(outside text: String) {
        update(.notes, to: text)
        let content = mutableState.value
        set(
            values: content.values, errors: content.errors, phase: content.phase, newOwner: content.newOwner,
            notice: .init("Notes taken from the editor.", isError: false))
    }

    /// Editing the notes outside failed or changed nothing, for `reason`: the notice says so
    /// until `clearNotice()`.
    public func notesNotEdited(_ reason: String) {
        let content = mutableState.value
        set(
            values: content.values, errors: content.errors, phase: content.phase, newOwner: content.newOwner,
            notice: .init(reason, isError: true))
    }

    /// Drops the notice (the next key was pressed).
    public func clearNotice() {
        let content = mutableState.value
        guard content.notice != nil else { return }
        set(values: content.values, errors: content.errors, phase: content.phase, newOwner: content.newOwner)
    }

    // MARK: - Pure rules

    /// The message for each invalid field: title required and at most `maximumTitleLength`
    /// characters (Unicode scalars, the store's rule),
    /// priority a whole number from 0 to 3, owner an email. Whether the owner exists is
    /// checked when saving.
    public nonisolated static func validate(_ values: [ItemEditorField: String]) -> [ItemEditorField: String] {
        var errors: [ItemEditorField: String] = [:]
        let title = (values[.title] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if title.isEmpty {
            errors[.title] = "A title is required."
        } else if let nul = TextLimits.nulProblem(values[.title] ?? "", what: "The title") {
            errors[.title] = nul + "."
        } else if title.unicodeScalars.count > maximumTitleLength {
            errors[.title] =
                "The title is \(title.unicodeScalars.count) characters; shorten it to \(maximumTitleLength) or fewer."
        }
        // The store's rule for every write (`TextLimits`), said here with the text kept.
        if let nul = TextLimits.nulProblem(values[.notes] ?? "", what: "The notes") {
            errors[.notes] = nul + "."
        }
        let priority = (values[.priority] ?? "").trimmingCharacters(in: .whitespaces)
        let isValidPriority = priority.isEmpty || Int(priority).map(Item.priorities.contains) == true
        if !isValidPriority {
            errors[.priority] = "Priority is a number from 0 (none) to 3 (high)."
        }
        let owner = (values[.owner] ?? "").trimmingCharacters(in: .whitespaces)
        if owner.isEmpty {
            errors[.owner] = "An owner is required: type their email."
        } else if !owner.contains("@") {
            errors[.owner] = "The owner is given by email, like ada@example.com."
        }
        let status = values[.status] ?? ""
        if !status.isEmpty, Item.Status(rawValue: status) == nil {
            errors[.status] = "The status is open or done."
        }
        return errors
    }

    /// Users whose email or name starts with `text` (trimmed, letter case ignored), best
    /// first: the exact email, then emails that start with it, names that start with it, and
    /// names with a later word that starts with it; ties by name, then email. At most
    /// `limit`; none for empty text.
    public nonisolated static func ownerSuggestions(
        for text: String, among users: [User], limit: Int = maximumSuggestions
    ) -> [User] {
        ownerMatches(for: text, among: users, limit: limit).best
    }

    /// `ownerSuggestions(for:among:limit:)`, and how many users match in all (5,000 where
    /// five are offered), for the list to say.
    public nonisolated static func ownerMatches(
        for text: String, among users: [User], limit: Int = maximumSuggestions
    ) -> (best: [User], count: Int) {
        let typed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !typed.isEmpty else { return ([], 0) }
        func rank(_ user: User) -> Int? {
            let email = user.email.lowercased()
            let name = user.name.lowercased()
            if email == typed { return 0 }
            if email.hasPrefix(typed) { return 1 }
            if name.hasPrefix(typed) { return 2 }
            if name.split(separator: " ").dropFirst().contains(where: { $0.hasPrefix(typed) }) { return 3 }
            return nil
        }
        let ranked = users.compactMap { user in rank(user).map { (rank: $0, user: user) } }
        let best = ranked.sorted {
            ($0.rank, $0.user.name.lowercased(), $0.user.email) < ($1.rank, $1.user.name.lowercased(), $1.user.email)
        }
        .prefix(max(0, limit)).map(\.user)
        return (best, ranked.count)
    }

    /// The fields as values; call only when `validate` found no errors.
    nonisolated static func fields(_ values: [ItemEditorField: String]) -> (
        title: String, notes: String?, priority: Int, status: Item.Status
    ) {
        let notes = values[.notes] ?? ""
        return (
            (values[.title] ?? "").trimmingCharacters(in: .whitespacesAndNewlines),
            notes.isEmpty ? nil : notes,
            Int((values[.priority] ?? "").trimmingCharacters(in: .whitespaces)) ?? 0,
            Item.Status(rawValue: values[.status] ?? "") ?? .open
        )
    }

    nonisolated static func values(of item: Item, ownerEmail: String) -> [ItemEditorField: String] {
        [
            .title: item.title, .notes: item.notes ?? "", .priority: String(item.priority), .owner: ownerEmail,
            .status: item.status.rawValue,
        ]
    }
}
