internal import Foundation
public import ShelfReactive
public import ShelfStore

/// Acting on many items and taking actions back: the browser's marks, the bulk actions on the
/// marked items (or the selected one), and the undo history of the session.
///
/// Every write is one transaction (`update(contentsOf:)`, `deleteItems(ids:)`, `restore`)
/// and is recorded in `history` with the items before and after. Undo writes the reverse only
/// if the items are still the versions this browser wrote; when someone changed one since,
/// nothing is written, `message` says which item, and the history stays as it was.
///
/// One action runs at a time: an intent while another runs only says to wait. Main actor;
/// the intents are `async` and return when the action is over and `message` is set. The UI
/// runs them through `enqueue(_:)`, which orders them as typed and returns an `Intent` to
/// await or cancel.
@MainActor
public final class ItemActions {
    /// The marked items.
    public let marks: Property<ItemMarks>
    /// What the last action did or why it failed, for the status bar; nil when there is
    /// nothing to say.
    public let message: Property<String?>
    /// The undo and redo stacks.
    public internal(set) var history = UndoHistory()

    /// IDs read per page when marking every match or reading many marked items.
    nonisolated static let pageSize = 10_000

    let store: Store
    let mutableMarks = MutableProperty(ItemMarks())
    let mutableMessage = MutableProperty<String?>(nil)
    var isWorking = false
    /// The bulk write running now, which Esc cancels (`cancelBulkWrite()`).
    var bulkWrite: Task<Void, Never>?
    /// Stops the copy running now (`copy(selected:json:write:finish:)`), which Esc cancels too.
    var copyCancel: (@MainActor () -> Void)?
    /// A recount of a query's marks is queued (one at a time: changes in a burst share it).
    var recountQueued = false
    /// What a full history dropped while recording the running action, said after its outcome.
    var historyNote: String?
    /// Runs the intents queued with `enqueue(_:)`, one after the other.
    private let tasks = IntentTracker()
    /// The item as the editor opened it, to record the edit once it is saved.

    /// Actions on `store`, with an undo history of at most `historyLimit` actions.
    public init(store: Store, historyLimit: Int = 1_000) {
        self.store = store
        history = UndoHistory(limit: historyLimit)
        marks = mutableMarks.property
        message = mutableMessage.property
    }

    /// Runs `intent` after every intent queued before it has finished, so keys typed quickly
    /// act in the order typed (`M` then `y` copies what `M` marked). The intents of this type
    /// show their outcome in `message`; `intent` must too.
    @discardableResult
    public func enqueue(_ intent: @escaping @MainActor () async -> Void) -> Intent {
        tasks.start(serially: true, { await intent() }, onFailure: { _ in })  // `intent` cannot throw
    }

    /// Runs `intent` after every intent queued before it, like `enqueue(_:)`, and returns its
    /// result (a prompt waits for its action this way); nil when it was cancelled before it
    /// could run.
    @discardableResult
    public func enqueued<Result: Sendable>(_ intent: @escaping @MainActor () async -> Result) async -> Result? {
        let box = ResultBox<Result>()
        // An intent of its own, not one more task of the caller's: a prompt's submit calls this
        // from its tracked task, and waiting for that task's group waited for itself (the
        // prompt stayed open, taking only Esc, after its change was made).
        let queued = IntentGroup.$current.withValue(nil) { enqueue { box.value = await intent() } }
        await queued.finished()
        return box.value
    }

    /// Clears `message` (the next key was pressed).
    public func clearMessage() {
        if mutableMessage.value != nil { mutableMessage.value = nil }
    }

    /// The marked IDs, sorted; or `selected` alone when nothing is marked. Empty for marks
    /// that describe a query (`ItemMarks.isDescribed`): the actions read those from the store.
    public func targets(selected: Item.ID?) -> [Item.ID] {
        let marks = mutableMarks.value
        if marks.isDescribed { return [] }
        if !marks.isEmpty { return marks.ids.sorted() }
        return selected.map { [$0] } ?? []
    }

    // MARK: - Marks

    /// Marks the item, or unmarks it.
    public func toggleMark(id: Item.ID) {
        mutableMarks.value.toggle(id)
    }

    /// Removes every mark.
    public func clearMarks() {
        guard !mutableMarks.value.isEmpty else { return }
        mutableMarks.value.removeAll()
        mutableMessage.value = "marks cleared"
    }

    /// Marks every item matching `query` (all of them, not only those on screen) as a
    /// description, "all that match `query`", at once whatever the count; when items are
    /// marked already, clears the marks instead. `shown` are the rows a list of this query
    /// holds (they carry the mark at once) and `count` its count when known; the store counts
    /// the marks again after (see `recountMarks()`).
    public func markAll(matching query: ItemQuery, shown: [Item.ID] = [], count: Int? = nil) async {
        if !mutableMarks.value.isEmpty {
            clearMarks()
            return
        }
        let marks = ItemMarks(matching: query, now: Date(), shown: shown, count: count)
        mutableMarks.value = marks
        // Items added from now on (here or by another process) stay out of the marks: what
        // a confirmation counts is what the action changes.
        do {
            let highest = try await store.items.highestItemID()
            // Unless the marks were cleared or made again meanwhile (a toggle keeps them).
            guard mutableMarks.value.isDescribed, mutableMarks.value.selection?.now == marks.selection?.now else {
                return
            }
            mutableMarks.value.bound(through: highest)
        } catch {
            fail("Could not read the items to mark: \(error)")
            mutableMarks.value.removeAll()
            return
        }
        await recountMarks()
    }

    /// Drops the marks of those `ids` whose items no longer exist (deleted, here or
    /// elsewhere). Call it with marked IDs that left the list.
    /// When the store cannot be read, the marks stay and `message` says why.
    public func forgetDeleted(among ids: [Item.ID]) async {
        if mutableMarks.value.isDescribed { return await recountMarks() }
        let marked = ids.filter { mutableMarks.value.contains($0) }
        guard !marked.isEmpty else { return }
        var gone: [Item.ID] = []
        do {
            for id in marked where try await store.items.item(id: id) == nil { gone.append(id) }
        } catch {
            fail("Could not check which marked items still exist: \(error)")
            return
        }
        if !gone.isEmpty { mutableMarks.value.unmark(gone) }
    }

    /// Checks every mark against the store and drops the marks of items that no longer exist
    /// (deleted here or by another process, one by one or with their owner); returns how many
    /// marked items exist. Prompts that name a count of marked items call it first, so the
    /// count they show is true. When the store cannot be read, the marks stay, `message` says
    /// why, and the count is nil.
    @discardableResult
    public func pruneMarks() async -> Int? {
        if mutableMarks.value.isDescribed {
            await recountMarks()
            return mutableMarks.value.isDescribed ? mutableMarks.value.counted : mutableMarks.value.count
        }
        let marked = mutableMarks.value.ids
        guard !marked.isEmpty else { return 0 }
        do {
            let found = Set(try await Self.items(ids: marked, store: store).map(\.id))
            let gone = marked.subtracting(found)
            if !gone.isEmpty { mutableMarks.value.unmark(gone) }
            return mutableMarks.value.count
        } catch {
            fail("Could not check which marked items still exist: \(error)")
            return nil
        }
    }

    // MARK: - Actions

    /// Marks done or open: with marks, every marked item (all done when any is open, else all
    /// open); without, the selected item flips.
    public func toggleDone(selected: Item.ID?) async {
        if let selection = describedSelection { return await toggleDone(in: selection) }
        let ids = targets(selected: selected)
        guard !ids.isEmpty else { return }
        await run("change") {
            let items = try await self.read(ids)
            guard !items.isEmpty else { return "the items no longer exist" }
            let status: Item.Status = items.contains { $0.status == .open } ? .done : .open
            let changed = items.filter { $0.status != status }.map { item in
                var item = item
                item.status = status
                return item
            }
            let name = "mark \(Self.describe(changed.count)) \(status.rawValue)"
            try await self.write(changed, previous: items.filter { $0.status != status }, name: name)
            return Self.past(name)
        }
    }

    /// Deletes the items with `ids` in one transaction, keeping them whole for undo.
    public func delete(ids: [Item.ID]) async {
        if let selection = describedSelection { return await bulk(.delete, in: selection) }
        guard !ids.isEmpty else { return }
        await run("delete") {
            let items = try await self.read(ids)
            guard !items.isEmpty else { return "the items no longer exist" }
            let deleted = try await self.store.items.deleteItems(ids: items.map(\.id))
            self.mutableMarks.value.unmark(items.map(\.id))
            let name = "delete \(Self.describe(items.count))"
            await self.record(HistoryEntry(name: name, change: .deleted(items)))
            return deleted == items.count ? Self.past(name) : "deleted \(Self.describe(deleted))"
        }
    }

    /// Gives the marked items (or the selected one) to the user with `email`. Returns nil when
    /// done, or why not (no such user, the users could not be read) for the prompt to show.
    @discardableResult
    public func setOwner(email: String, selected: Item.ID?) async -> String? {
        let email = email.trimmingCharacters(in: .whitespaces)
        let ids = targets(selected: selected)
        guard !ids.isEmpty || describedSelection != nil else { return nil }
        let owner: User
        switch await user(email: email) {
        case .success(let found): owner = found
        case .failure(let problem): return problem.message
        }
        if let selection = describedSelection {
            await bulk(.owner(owner.id), in: selection, ownerName: owner.name)
            return nil
        }
        await run("change") {
            let items = try await self.read(ids)
            let changed = items.filter { $0.userID != owner.id }
            let name = "give \(Self.describe(changed.count)) to \(owner.name)"
            try await self.write(
                changed.map { item in
                    var item = item
                    item.userID = owner.id
                    return item
                }, previous: changed, name: name)
            return changed.isEmpty ? "nothing to change" : "gave \(Self.describe(changed.count)) to \(owner.name)"
        }
        return nil
    }

    /// The owner prompt's answer: finds the user with `email`, then queues
    /// `setOwner(email:selected:)` and returns without waiting for it, so that the prompt
    /// closes and the list takes keys while a change of a million items runs (its progress in
    /// `message`, Esc cancels it; a problem it meets is said in `message` too). Returns why not,
    /// for the prompt to show, when no user has the email or the users cannot be read.
    public func startOwnerChange(email: String, selected: Item.ID?) async -> String? {
        let email = email.trimmingCharacters(in: .whitespaces)
        if case .failure(let problem) = await user(email: email) { return problem.message }
        startDetached { [weak self] in
            guard let self, let problem = await self.setOwner(email: email, selected: selected) else { return }
            self.mutableMessage.value = problem
        }
        return nil
    }

    /// The priority prompt's answer: queues `setPriority(_:selected:)` and returns without
    /// waiting for it, so that the prompt closes and the list takes keys while it runs.
    public func startPriorityChange(_ priority: Int, selected: Item.ID?) {
        startDetached { [weak self] in await self?.setPriority(priority, selected: selected) }
    }

    /// Queues `intent` after those queued before it, as an intent of its own: not part of the
    /// caller's, whose end (a prompt's answer) does not wait for it.
    private func startDetached(_ intent: @escaping @MainActor () async -> Void) {
        IntentGroup.$current.withValue(nil) { _ = enqueue(intent) }
    }

    /// The user with `email`, or why there is none to give items to.
    private func user(email: String) async -> Result<User, OwnerProblem> {
        do {
            guard let found = try await store.users.user(email: email) else {
                return .failure(
                    OwnerProblem(message: "No user has the email \(email); type the email of an existing user."))
            }
            return .success(found)
        } catch {
            return .failure(OwnerProblem(message: "Could not look up the user with the email \(email): \(error)"))
        }
    }

    /// Sets the priority (0…3) of the marked items (or the selected one).
    public func setPriority(_ priority: Int, selected: Item.ID?) async {
        let ids = targets(selected: selected)
        guard !ids.isEmpty || describedSelection != nil, Item.priorities.contains(priority) else { return }
        if let selection = describedSelection { return await bulk(.priority(priority), in: selection) }
        await run("change") {
            let items = try await self.read(ids)
            let changed = items.filter { $0.priority != priority }
            let name = "set priority \(priority) on \(Self.describe(changed.count))"
            try await self.write(
                changed.map { item in
                    var item = item
                    item.priority = priority
                    return item
                }, previous: changed, name: name)
            return changed.isEmpty ? "nothing to change" : Self.past(name)
        }
    }

    /// Shows `text` in the status bar.
    public func show(_ text: String) {
        mutableMessage.value = text
    }

    /// Shows `text`, which says why something failed, in the status bar, and keeps it in
    /// `failures` (to be said again when the browser ends: hostile round 8, a copy's failure
    /// read at 80 columns lost its advice, and nothing repeated it).
    public func showFailure(_ text: String) {
        fail(text)
    }

    /// Keeps `text`, a failure a dialog showed (the item editor's or the user form's), in
    /// `failures` without changing `message`: the help lists it and the browser says it again
    /// when it ends (hostile round 11: a save refused in the editor was seen nowhere else).
    ///
    /// A failure said before is folded into one entry, counted, and moves to its latest place
    /// (hostile round 11: twenty identical copy failures pushed the one distinct failure out).
    public func keepFailure(_ text: String) {
        failureLog.keep(text)
    }

    /// Sets `message` to `text`, a failure, and keeps it in `failures`.
    func fail(_ text: String) {
        mutableMessage.value = text
        keepFailure(text)
    }

    /// The distinct failures said in this browser, in the order each was last said, the last
    /// `keptFailures`; one said more than once ends in its count, "(×40)".
    public var failures: [String] { failureLog.texts }
    /// Distinct failures said before the ones kept.
    public var droppedFailures: Int { failureLog.dropped }
    /// The most failures kept.
    nonisolated static let keptFailures = FailureLog.limit
    private var failureLog = FailureLog()

    /// Checks the marks like `pruneMarks()` before a prompt about the marked items; when
    /// none of them exists any more, `message` says so.
    public func checkMarksForPrompt() async -> Int? {
        let count = await pruneMarks()
        if count == 0 { mutableMessage.value = "the marked items no longer exist" }
        return count
    }

    // MARK: - Plumbing

    /// Runs one action at a time and puts its outcome in `message` (nil: nothing to say).
    func run(_ what: String, _ body: @MainActor () async throws -> String?) async {
        guard !isWorking else {
            mutableMessage.value = "busy: wait for the last action to finish"
            return
        }
        isWorking = true
        defer { isWorking = false }
        defer { historyNote = nil }
        let watcher = watchLockWait()
        defer { watcher.cancel() }
        do {
            let outcome = try await body()
            mutableMessage.value = [outcome, historyNote].compactMap { $0 }.joined(separator: " · ")
        } catch let refusal as ActionRefusal {
            fail(refusal.message)
        } catch {
            fail("Could not \(what) the items: \(error)")
        }
    }

    /// While an action runs: says in `message` when its write waits for another program's
    /// (another browser's bulk change, a script), and whose, asked every quarter second. The
    /// action's own messages (its progress, its outcome) take over when the wait ends.
    private func watchLockWait() -> Task<Void, Never> {
        let store = self.store
        return Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                let holder = try? await BlockingWork.run { _ in store.writeLockWait }
                guard !Task.isCancelled, let self, let holder = holder ?? nil else { continue }
                // What matters first: a long command line may run past the status bar's end.
                self.mutableMessage.value =
                    "waiting\(self.bulkWrite != nil ? " (Esc cancels)" : ""): \(holder) is writing to this store"
            }
        }
    }

    /// Saves `changed` in one transaction and records it, with `previous` the same items as
    /// they were.
    private func write(_ changed: [Item], previous: [Item], name: String) async throws {
        guard !changed.isEmpty else { return }
        let stored = try await store.items.update(contentsOf: changed)
        await record(HistoryEntry(name: name, change: .updated(previous: previous, stored: stored)))
    }

    /// The items with `ids` that exist, by ID; the marks of those that do not are dropped.
    func read(_ ids: [Item.ID]) async throws -> [Item] {
        let items = try await Self.items(ids: Set(ids), store: store)
        if items.count < ids.count {
            let found = Set(items.map(\.id))
            mutableMarks.value.unmark(ids.filter { !found.contains($0) })
        }
        return items
    }

    /// The items with `ids`, sorted by ID: one read each for a few, else a scan of every item
    /// a page at a time (cheaper than a million single reads).
    nonisolated static func items(ids: Set<Item.ID>, store: Store) async throws -> [Item] {
        var found: [Item] = []
        found.reserveCapacity(ids.count)
        if ids.count <= 2_000 {
            for id in ids.sorted() {
                if let item = try await store.items.item(id: id) { found.append(item) }
            }
            return found
        }
        var cursor: ItemCursor?
        while true {
            let page = try await store.items.items(matching: ItemQuery(), after: cursor, limit: pageSize)
            for item in page where ids.contains(item.id) { found.append(item) }
            guard page.count == pageSize, let last = page.last else { break }
            cursor = ItemCursor(last)
        }
        return found.sorted { $0.id < $1.id }
    }

    /// Every ID matching `query`, a page at a time.
    nonisolated static func ids(matching query: ItemQuery, store: Store) async throws -> [Item.ID] {
        var ids: [Item.ID] = []
        var cursor: ItemCursor?
        while true {
            let page = try await store.items.items(matching: query, after: cursor, limit: pageSize)
            ids.append(contentsOf: page.lazy.map(\.id))
            guard page.count == pageSize, let last = page.last else { break }
            cursor = ItemCursor(last)
        }
        return ids
    }

    /// `count` items in words: "1 item", "3 items", "1,200 items".
    public nonisolated static func describe(_ count: Int) -> String {
        count == 1 ? "1 item" : "\(Formatting.count(count)) items"
    }

    /// The action's name in the past tense, for the status bar.
    nonisolated static func past(_ name: String) -> String {
        for (present, past) in [("mark ", "marked "), ("delete ", "deleted "), ("set ", "set "), ("give ", "gave ")]
        where name.hasPrefix(present) {
            return past + name.dropFirst(present.count)
        }
        return name
    }
}

/// Why the items cannot be given to the owner typed, said to the person.
private struct OwnerProblem: Error {
    let message: String
}

/// Where `enqueued(_:)` keeps its intent's result.
@MainActor
private final class ResultBox<Value> {
    var value: Value?
}

/// An undo, redo or action refused, with the words for the status bar.
struct ActionRefusal: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
