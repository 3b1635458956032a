internal import Dispatch
internal import Foundation
internal import ShelfReactive
internal import ShelfSQLite
internal import ShelfStore
internal import Synchronization

/// The live item windows of one SQLite store: shared by key, kept up to date from the change
/// log, re-read only when a change can affect them.
///
/// **When.** Registered with the change tracker as one observer of `items` and `users`: a
/// commit that changes either (in any process) schedules one pass on this type's own serial
/// queue, which the tracker's queue drains (right after the tracker's pass, on its thread). The tracker's thread (or a committing task) only schedules it: no writer and no
/// tracker pass waits for live windows. Commits arriving during a pass make one more pass.
///
/// **A pass.** In one read transaction: the change log after the oldest window's position
/// (`SQLiteChangeLog.batch`), then, for each window, `LiveWindowJudge` on the changes after its
/// own position, asking the database only about changed rows (whether a row matches the
/// query's words, the row itself), and re-counting in that snapshot when only the count is
/// unknown. Windows that must be read again are read after the transaction, off the queue,
/// spread over up to as many threads as the store has readers (and the machine has cores), each
/// at the log position of its own read; the next pass leaves them alone until they are done. A
/// window publishes only when it differs.
///
/// **Failures.** A pass that fails publishes the failure once to every window, and passes are
/// retried after 100 ms, 300 ms, 1 s, then every 3 s until one succeeds (a failing window is
/// read in full then). A deleted or replaced file is final: no retries.
final class SQLiteLiveWindows: TableObserver {
    private struct State {
        var registered = false
        var scheduled = false
        /// The log position of the last pass's snapshot.
        var lastThrough: Int64 = 0
        var failures = 0
        var retryScheduled = false
        /// `PRAGMA schema_version` at the last pass: a schema change (a table dropped or
        /// rebuilt by another program) logs no rows but can change or break every window.
        var schemaVersion: Int64?
        /// Entries being read again off the queue: passes leave them alone until then.
        var rereading: Set<ObjectIdentifier> = []
    }

    private let database: Database
    let registry = LiveWindowRegistry()
    /// First reads under way, shared by the callers opening the same key at once.
    private let openings = LiveWindowOpenings()
    private let queue: DispatchQueue
    private let state = Mutex(State())
    /// Re-reads under way (for `settle`).
    private let inFlight = DispatchGroup()
    /// Reads of a whole window or of a count (first reads included), for tests and benchmarks.
    let runs: RunCounter
    /// Questions about one changed row (`matches`, the row itself), for benchmarks.
    let probes = RunCounter()
    /// Passes that had to read every window because the log no longer held what they
    /// needed, for tests.
    let fullPasses = RunCounter()

    init(database: Database, runs: RunCounter) {
        self.database = database
        self.runs = runs
        queue = database.changeTracker.observerQueue(label: "shelf.live-windows")
    }

    let observedTables: Set<String>? = ["items", "users"]

    func tablesDidChange() { schedulePass() }

    func databaseDidFail(_ error: any Error) {
        let failure = StoreError.translatingAny(error)
        for entry in registry.liveEntries() { entry.fail(failure) }
    }

    /// The shared entry of `key`, opened with a first read (off the calling task's thread when
    /// no reader is free) unless one exists. Callers opening the same key at the same moment
    /// share one first read (`LiveWindowOpenings`).
    func entry(for key: LiveWindowKey) async throws -> LiveWindowEntry {
        try await openings.entry(for: key, in: registry, check: refuseAfterTerminalFailure) {
            try await firstEntry(for: key)
        }
    }

    /// `key`'s entry from a first read on the calling task (`entry(for:)` makes sure only one
    /// caller reads a key at a time).
    private func firstEntry(for key: LiveWindowKey) async throws -> LiveWindowEntry {
        // Watching starts before the first read: a commit after it then makes a pass. The
        // first registration reads the tracker's baseline: on a thread of its own, once.
        if !state.withLock({ $0.registered }) {
            await BlockingWork.runToEnd { self.startWatching() }
        }
        let runs = runs
        let first: FirstRead
        do {
            first = try await database.read { try Self.firstRead(key, runs: runs, $0) }
        } catch {
            throw StoreError.translatingAny(error)
        }
        return added(first)
    }

    /// `entry(for:)` reading on the calling thread (blocking it): for code that must have the
    /// value at once, such as a live query made inside a change handler.
    func entryNow(for key: LiveWindowKey) throws -> LiveWindowEntry {
        try refuseAfterTerminalFailure()
        if let existing = registry.entry(for: key) { return existing }
        startWatching()
        let runs = runs
        let first = try StoreError.translating { try database.read { try Self.firstRead(key, runs: runs, $0) } }
        return added(first)
    }

    /// Registers with the change tracker, once (before the first read of any window).
    private func startWatching() {
        let register = state.withLock { state -> Bool in
            defer { state.registered = true }
            return !state.registered
        }
        if register { database.changeTracker.register(self) }
    }

    /// A new entry's first read: its window, the log position and the schema version, in one
    /// snapshot.
    private struct FirstRead: Sendable {
        let entry: LiveWindowEntry
        let schemaVersion: Int64?
    }

    private static func firstRead(_ key: LiveWindowKey, runs: RunCounter, _ connection: Connection) throws
        -> FirstRead
    {
        runs.increment()
        let window = try Self.window(key, connection)
        let position = try SQLiteChangeLog.lastSequence(connection)
        let schema = try connection.fetchOne("PRAGMA schema_version", row: { try $0.int64(0) })
        return FirstRead(entry: LiveWindowEntry(key: key, window: window, position: position), schemaVersion: schema)
    }

    /// Adds a freshly read entry; a pass that ran after its read but before this did not see
    /// it, and another pass is scheduled. The first entry's schema version is the one passes
    /// compare with (a schema change before the first pass is then seen).
    private func added(_ first: FirstRead) -> LiveWindowEntry {
        let shared = registry.insert(first.entry)
        let behind = state.withLock { state -> Bool in
            if state.schemaVersion == nil { state.schemaVersion = first.schemaVersion }
            return first.entry.position < state.lastThrough
        }
        if behind { schedulePass() }
        return shared
    }

    /// The file was deleted or replaced: the connections would read a ghost.
    private func refuseAfterTerminalFailure() throws {
        if let failure = database.changeTracker.terminalFailure { throw StoreError.translatingAny(failure) }
    }

    /// Returns once every pass scheduled before the call has ended (for tests).
    func settle() async {
        await withCheckedContinuation { continuation in
            database.changeTracker.enqueue { continuation.resume() }
        }
        // A pass, the re-reads it started, and the pass they may schedule.
        for _ in 0..<2 {
            await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
            await withCheckedContinuation { continuation in
                inFlight.notify(queue: .global()) { continuation.resume() }
            }
        }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    static func window(_ key: LiveWindowKey, _ connection: Connection) throws -> ItemWindow {
        ItemWindow(
            items: try SQLiteItemRepository.page(
                key.query, cursor: key.anchor, backward: false, limit: key.limit, connection),
            totalCount: try SQLiteItemRepository.count(key.query, connection))
    }

    private func schedulePass() {
        let start = state.withLock { state -> Bool in
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if start { queue.async { [weak self] in self?.pass() } }
    }

    /// Where a pass's judgement lands for one entry.
    private enum Outcome {
        case publish(LiveWindowEntry, ItemWindow)
        case reread(LiveWindowEntry)
    }

    private func pass() {
        let busy = state.withLock { state -> Set<ObjectIdentifier> in
            state.scheduled = false
            return state.rereading
        }
        let entries = registry.liveEntries().filter { !busy.contains(ObjectIdentifier($0)) }
        guard let from = entries.lazy.map(\.position).min() else { return }
        var outcomes: [Outcome] = []
        var through = from
        do {
            through = try database.read { connection in
                var batch = try SQLiteChangeLog.batch(after: from, connection)
                let schema = try connection.fetchOne("PRAGMA schema_version", row: { try $0.int64(0) })
                let moved = state.withLock { state -> Bool in
                    defer { state.schemaVersion = schema }
                    return state.schemaVersion != nil && state.schemaVersion != schema
                }
                if moved { batch.incomplete = true }
                outcomes = try judge(entries, batch, connection)
                return batch.through
            }
        } catch {
            fail(entries, error)
            return
        }
        var rereads: [LiveWindowEntry] = []
        for outcome in outcomes {
            switch outcome {
            case .publish(let entry, let window): entry.update(window, position: through)
            case .reread(let entry): rereads.append(entry)
            }
        }
        state.withLock { state in
            state.lastThrough = max(state.lastThrough, through)
            state.failures = 0
        }
        startRereads(rereads)
        scheduleIfBehind()
    }

    /// Schedules a pass when an entry that is not being read again is behind the last pass
    /// (opened during it, at an older position, or read again at one).
    private func scheduleIfBehind() {
        let (through, busy) = state.withLock { ($0.lastThrough, $0.rereading) }
        if registry.liveEntries().contains(where: { $0.position < through && !busy.contains(ObjectIdentifier($0)) }) {
            schedulePass()
        }
    }

    /// The outcome for every entry, in the batch's snapshot (`connection`).
    private func judge(_ entries: [LiveWindowEntry], _ batch: LiveChangeBatch, _ connection: Connection) throws
        -> [Outcome]
    {
        if batch.incomplete {
            fullPasses.increment()
            Diagnostics.debug(
                "live windows read in full: the change log no longer holds every change after \(batch.after) "
                    + "(now at \(batch.through)); \(entries.count) windows read again")
            return entries.map { .reread($0) }
        }
        var outcomes: [Outcome] = []
        var net: [Int64: [ItemChange]] = [:]
        var matches: [ItemQuery: [Item.ID: Bool]] = [:]
        var rows: [Item.ID: Item?] = [:]
        for entry in entries {
            let position = entry.position
            if entry.isFailing {
                outcomes.append(.reread(entry))
                continue
            }
            guard position < batch.through else { continue }
            let changes = net[position] ?? batch.netItemChanges(after: position)
            net[position] = changes
            let query = entry.key.query
            let verdict = try entry.judge.judge(
                entry.window, changes: changes, usersChanged: batch.usersChanged(after: position),
                matches: { id in
                    if let known = matches[query]?[id] { return known }
                    probes.increment()
                    let answer = try SQLiteChangeLog.matches(query, id: id, connection)
                    matches[query, default: [:]][id] = answer
                    return answer
                },
                item: { id in
                    if let known = rows[id] { return known }
                    probes.increment()
                    let row = try SQLiteItemRepository.item(id: id, connection)
                    rows[id] = row
                    return row
                })
            switch verdict {
            case .unchanged:
                outcomes.append(.publish(entry, entry.window))
            case .updated(let window):
                outcomes.append(.publish(entry, window))
            case .countChanged(let items):
                runs.increment()
                let count = try SQLiteItemRepository.count(query, connection)
                outcomes.append(.publish(entry, ItemWindow(items: items, totalCount: count)))
            case .rerun:
                outcomes.append(.reread(entry))
            }
        }
        return outcomes
    }

    /// Reads `entries` again off the queue, in parallel over the readers (up to one thread per
    /// reader and core), so that the next pass need not wait for them: passes leave an entry
    /// alone while it is read, and look at it again once it is done (at the position of its
    /// read). A failure publishes on the entry and schedules a retry.
    private func startRereads(_ entries: [LiveWindowEntry]) {
        guard !entries.isEmpty else { return }
        state.withLock { state in
            for entry in entries { state.rereading.insert(ObjectIdentifier(entry)) }
        }
        let workers = max(1, min(entries.count, database.readerCount, ProcessInfo.processInfo.activeProcessorCount))
        let failure = FirstFailure()
        let runs = runs
        let database = database
        let group = DispatchGroup()
        for worker in 0..<workers {
            group.enter()
            inFlight.enter()
            // Dispatch, not `BlockingWork`: this runs from a pass on `queue`, where no task
            // exists to await a `BlockingWork` (a task made here would be unstructured). The
            // workers are not forgotten: `group` and `inFlight` (which `close` waits for)
            // track them, and each failure is published on its entry, then retried.
            DispatchQueue.global().async { [self] in
                defer {
                    group.leave()
                    inFlight.leave()
                }
                for index in stride(from: worker, to: entries.count, by: workers) {
                    let entry = entries[index]
                    do {
                        let (window, position) = try database.read { connection in
                            runs.increment()
                            return (
                                try Self.window(entry.key, connection), try SQLiteChangeLog.lastSequence(connection)
                            )
                        }
                        entry.update(window, position: position)
                    } catch {
                        entry.fail(StoreError.translatingAny(error))
                        failure.record(error)
                    }
                    _ = state.withLock { $0.rereading.remove(ObjectIdentifier(entry)) }
                }
            }
        }
        group.notify(queue: queue) { [weak self] in
            guard let self else { return }
            if let error = failure.error {
                fail([], error)
            } else {
                scheduleIfBehind()
            }
        }
    }

    /// Publishes `error` to `entries` and schedules a retry, unless the file is gone for good.
    private func fail(_ entries: [LiveWindowEntry], _ error: any Error) {
        let failure = StoreError.translatingAny(error)
        for entry in entries { entry.fail(failure) }
        guard database.changeTracker.terminalFailure == nil, !database.changeTracker.isStopped else { return }
        let delay = state.withLock { state -> Duration? in
            state.failures += 1
            guard !state.retryScheduled else { return nil }
            state.retryScheduled = true
            let delays: [Duration] = [.milliseconds(100), .milliseconds(300), .seconds(1), .seconds(3)]
            return delays[min(state.failures, delays.count) - 1]
        }
        guard let delay else { return }
        let milliseconds = Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        queue.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [weak self] in
            guard let self else { return }
            state.withLock { $0.retryScheduled = false }
            schedulePass()
        }
    }
}

/// The first error of several threads' work.
private final class FirstFailure: Sendable {
    private let storage = Mutex<(any Error)?>(nil)

    var error: (any Error)? { storage.withLock { $0 } }

    func record(_ error: any Error) {
        storage.withLock { if $0 == nil { $0 = error } }
    }
}
