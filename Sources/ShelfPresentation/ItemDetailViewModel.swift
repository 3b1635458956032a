public import ShelfReactive
public import ShelfStore

/// Everything the detail pane shows about one item, formatted.
///
/// Notes can be megabytes long (written by another program); the pane shows a bounded
/// preview of them — at most `notesPreviewBytes` of UTF-8 and `notesPreviewLines` lines —
/// and says how much more there is (`notesMarker`), unless it was made with the whole notes
/// (the detail opened with Enter). Nothing here holds more notes than it shows.
public struct ItemDetailContent: Hashable, Sendable {
    /// The most bytes (UTF-8) of notes a preview holds.
    public static let notesPreviewBytes = 16 * 1024
    /// The most lines of notes a preview holds.
    public static let notesPreviewLines = 200

    /// The item's ID.
    public let id: Item.ID
    /// The title as stored (not cut; the view fits it).
    public let title: String
    /// The notes, or their first part (see `notesHiddenBytes`); nil when there are none
    /// (empty notes are none).
    public let notes: String?
    /// How many bytes (UTF-8) of the notes are not in `notes`; 0 when `notes` is whole.
    public let notesHiddenBytes: Int
    /// The owner's name, or "unknown owner" while users load or when the owner is missing.
    public let ownerName: String
    /// The owner's email, or "" when the owner is not known.
    public let ownerEmail: String
    /// "open" or "done".
    public let status: String
    /// "high (3)", "none (0)", …
    public let priority: String
    /// Full timestamps: "2026-11-22 14:05 UTC".
    public let created: String
    /// When the item was last changed, formatted as `created` is.
    public let updated: String

    /// The content for `item` owned by `owner` (nil while users load or when missing): with a
    /// preview of its notes, or all of them when `wholeNotes` is true.
    public init(item: Item, owner: User?, wholeNotes: Bool = false) {
        id = item.id
        title = item.title
        let notes = item.notes.flatMap { $0.isEmpty ? nil : $0 }
        if let notes, !wholeNotes {
            let preview = Self.preview(of: notes)
            self.notes = preview
            notesHiddenBytes = notes.utf8.count - preview.utf8.count
        } else {
            self.notes = notes
            notesHiddenBytes = 0
        }
        ownerName = owner?.name ?? "unknown owner"
        ownerEmail = owner?.email ?? ""
        status = item.status.rawValue
        priority = "\(Formatting.priorityName(item.priority)) (\(item.priority))"
        created = Formatting.timestamp(item.createdAt)
        updated = Formatting.timestamp(item.updatedAt)
    }

    /// The pane's title: "Item 42".
    public var heading: String { "Item \(id)" }

    /// The fields, one line each, names aligned: "Status    open", "Priority  high (3)",
    /// "Owner     Ada <ada@x.io>", "Created   …", "Updated   …".
    public var fieldLines: [String] {
        [
            "Status    \(status)", "Priority  \(priority)",
            "Owner     \(ownerName)\(ownerEmail.isEmpty ? "" : " <\(ownerEmail)>")",
            "Created   \(created)", "Updated   \(updated)",
        ]
    }

    /// The notes to show, or "No notes." when there are none (see `hasNotes`).
    public var notesText: String { notes ?? "No notes." }

    /// True when the item has notes (else `notesText` says there are none).
    public var hasNotes: Bool { notes != nil }

    /// What the pane says after a preview about the rest, with the default keys: see
    /// `notesMarker(keys:)`.
    public var notesMarker: String? { notesMarker(keys: .defaults) }

    /// What the pane says after a preview about the rest: "… (4,883 more KB — Enter to open)",
    /// naming the key that opens the item as `keys` names it (hostile round 12: it said Enter
    /// once Enter was rebound); nil when the notes are whole.
    public func notesMarker(keys: KeyNames) -> String? {
        guard notesHiddenBytes > 0 else { return nil }
        let size =
            notesHiddenBytes < 1024
            ? "\(Formatting.count(notesHiddenBytes)) more bytes"
            : "\(Formatting.count((notesHiddenBytes + 1023) / 1024)) more KB"
        return "… (\(size) — \(keys("list.open", "Enter")) to open)"
    }

    /// The first `notesPreviewLines` lines of `notes`, at most `notesPreviewBytes` bytes, cut
    /// at a code point's boundary; `notes` itself when it is shorter. Looks at no more of
    /// `notes` than it keeps.
    static func preview(of notes: String) -> String {
        let utf8 = notes.utf8
        var end = utf8.index(utf8.startIndex, offsetBy: notesPreviewBytes, limitedBy: utf8.endIndex) ?? utf8.endIndex
        var lines = 0
        var index = utf8.startIndex
        while index < end {
            if utf8[index] == UInt8(ascii: "\n") {
                lines += 1
                if lines == notesPreviewLines {
                    end = index
                    break
                }
            }
            utf8.formIndex(after: &index)
        }
        guard end < utf8.endIndex else { return notes }
        // Back to the start of the code point the cut falls in (past its continuation bytes).
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { utf8.formIndex(before: &end) }
        return String(notes.unicodeScalars[..<end])
    }
}

/// One item, live: its fields and its owner, for the detail pane.
///
/// When the item is deleted (here or by another process) the state becomes `.empty` with a
/// message saying so. Main actor.
@MainActor
public final class ItemDetailViewModel {
    /// What the pane shows.
    public let state: Property<ViewState<ItemDetailContent>>
    /// How `hint` names keys: the browser sets the keys in force.
    public var keys = KeyNames.defaults
    /// The item shown.
    public let id: Item.ID
    /// True when the notes are shown whole, false for a bounded preview (see
    /// `ItemDetailContent`).
    public let wholeNotes: Bool

    private let store: Store
    private let mutableState = MutableProperty<ViewState<ItemDetailContent>>(.idle)
    private let token = Lifetime.Token()
    private let tasks = IntentTracker()
    private var observation: Observation?

    /// A detail model for the item `id`, in state `.idle`: nothing is read until `load()`.
    /// Observations it makes end when the model is released. Its notes are a bounded preview
    /// unless `wholeNotes` is true (the detail opened on purpose).
    public init(store: Store, id: Item.ID, wholeNotes: Bool = false) {
        self.store = store
        self.id = id
        self.wholeNotes = wholeNotes
        state = mutableState.property
    }

    /// Reads the item and its owner and follows their changes; a failure shows as `.failed`.
    /// Does nothing once following (a load still running is replaced by a new one).
    @discardableResult
    public func load() -> Intent {
        guard observation == nil else { return .done }
        mutableState.value = .loading
        let store = self.store
        let id = self.id
        return tasks.start(
            key: "load",
            { combineLatest(try await store.liveItem(id: id), try await store.liveUsers()) },
            then: { [weak self] values in self?.follow(values) }, onFailure: { [weak self] error in self?.fail(error) })
    }

    /// What to do about what the pane shows: "Press r to try again." after a failure; nil
    /// otherwise, and after the file was deleted or replaced (its message says to start again;
    /// r would read the old file: hostile round 11).
    public var hint: String? {
        guard let failure = state.value.failure, !ItemListViewModel.isFileReplaced(failure) else { return nil }
        return "Press \(keys("detail.retry", "r")) to try again."
    }

    /// Reads again after a failure.
    @discardableResult
    public func retry() -> Intent {
        // The file deleted or replaced: the failure stays (a read would show the old file's item).
        if let failure = state.value.failure, ItemListViewModel.isFileReplaced(failure) { return .done }
        observation?.cancel()
        observation = nil
        return load()
    }

    /// Stops reading (the pane closed before the item arrived).
    public func cancel() {
        tasks.cancelAll()
    }

    private func follow(_ values: Property<(LiveResult<Item?>, LiveResult<[User]>)>) {
        observation = values.observeOutsideIntents(during: token.lifetime) { [weak self] item, users in
            guard let self else { return }
            switch (item, users) {
            case (.success(let item), .success(let users)):
                mutableState.value = Self.state(item: item, users: users, id: id, wholeNotes: wholeNotes)
            case (.failure(let error), _), (_, .failure(let error)):
                fail(error)  // the queries retry by themselves
            }
        }
    }

    private func fail(_ error: any Error) {
        mutableState.value = .failed(Failure("Could not read item \(id): \(error)", underlying: error))
    }

    /// The pure mapping: the item with its owner (and a preview of its notes unless
    /// `wholeNotes`), or why there is nothing.
    public nonisolated static func state(
        item: Item?, users: [User], id: Item.ID, wholeNotes: Bool = false
    ) -> ViewState<ItemDetailContent> {
        guard let item else { return .empty("Item \(id) was deleted.") }
        return .loaded(
            ItemDetailContent(item: item, owner: users.first { $0.id == item.userID }, wholeNotes: wholeNotes))
    }
}
