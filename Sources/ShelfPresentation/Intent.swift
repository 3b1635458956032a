internal import ShelfReactive
internal import Synchronization

/// The work an intent started (`search(_:)`, `save()`, `undo()`, …): wait for it with
/// `finished()`, stop it with `cancel()`.
///
/// The work includes what it started in turn: a search's first page, then the live window it
/// opens, then the count of items before it. Its outcome — a failure too — is in the view
/// model's state when `finished()` returns; the handle itself carries no result or error.
/// Ignoring the handle is fine: the view model keeps the work running on its own.
///
/// ```swift
/// await list.search("moth").finished()
/// #expect(list.state.value.value?.rows.first?.title == "Moths in the attic")
/// ```
public struct Intent: Sendable {
    let group: IntentGroup?
    /// The task this intent started itself (not its follow-ups).
    let task: Task<Void, Never>?

    /// An intent that needed no store work (refused, or done at once).
    public static let done = Intent(group: nil, task: nil)

    /// Waits until the intent's work is over, including the work it started meanwhile.
    /// Returns at once when there is none. Cancelling the waiting task does not stop the work.
    public func finished() async {
        await group?.finished()
    }

    /// Stops the intent's work now running: its reads are interrupted, and what it would
    /// have shown is not shown (a cancelled intent's outcome, failure included, is dropped).
    public func cancel() {
        group?.cancel()
    }
}

/// The tasks one intent started, directly or from inside one of its tasks. A task removes
/// itself when it ends, so a group holds only running work.
final class IntentGroup: Sendable {
    /// The group of the tracked task running now, if any: work it starts joins it.
    @TaskLocal static var current: IntentGroup?

    private let running = Mutex<[UInt64: Task<Void, Never>]>([:])

    func add(_ task: Task<Void, Never>, id: UInt64) {
        running.withLock { $0[id] = task }
    }

    func remove(id: UInt64) {
        _ = running.withLock { $0.removeValue(forKey: id) }
    }

    func finished() async {
        while let task = running.withLock({ $0.values.first }) {
            await task.value
        }
    }

    func cancel() {
        for task in running.withLock({ Array($0.values) }) { task.cancel() }
    }
}

/// Runs a view model's store work as tracked tasks on the main actor, the one way view
/// models start work.
///
/// Every task belongs to an `Intent` (the one whose task started it, else a new one), so
/// tests and callers can await or cancel it. A task started with a `key` cancels the running
/// task with the same key (a newer load replaces an older one). Tasks started `serially`
/// run one after another in the order started (keys typed quickly act in the order typed).
/// A failure goes to the `onFailure` handler given with the work, which puts it in the view
/// model's state; only the failure of a cancelled task (`CancellationError`, or any error
/// once cancelled) is dropped, since a newer intent replaced what it would show. Releasing
/// the tracker (with its view model) cancels what still runs.
///
/// Work given as one main-actor `body` runs on the main actor between its awaits; the
/// store's calls are `async` (nonisolated) and run off it, so the main actor never waits for
/// SQL. Reads given as `work` and `then` start off the main actor and only hand their result
/// to it.
final class IntentTracker: Sendable {
    private struct State {
        var running: [UInt64: Task<Void, Never>] = [:]
        var keys: [String: UInt64] = [:]
        var nextID: UInt64 = 0
        /// The last task started serially; the next serial one waits for it.
        var lastSerial: Task<Void, Never>?
    }

    private let state = Mutex(State())

    init() {}

    deinit {
        for task in state.withLock({ Array($0.running.values) }) { task.cancel() }
    }

    /// How many tracked tasks run now.
    var runningCount: Int { state.withLock { $0.running.count } }

    /// Starts `body` as a tracked task and returns its intent.
    /// - Parameters:
    ///   - key: cancels the running task started with the same key, if any.
    ///   - serially: runs `body` after every task started serially before it has ended;
    ///     cancelled before its turn, `body` does not run.
    ///   - body: the work, on the main actor; it returns when done, or throws.
    ///   - onFailure: shows an error `body` threw (unless the task was cancelled).
    @MainActor @discardableResult
    func start(
        key: String? = nil, serially: Bool = false, _ body: @escaping @MainActor () async throws -> Void,
        onFailure: @escaping @MainActor (any Error) -> Void
    ) -> Intent {
        let group = IntentGroup.current ?? IntentGroup()
        let (id, replaced, previous) = state.withLock { state in
            state.nextID += 1
            let replaced = key.flatMap { state.keys[$0] }.flatMap { state.running[$0] }
            return (state.nextID, replaced, serially ? state.lastSerial : nil)
        }
        replaced?.cancel()
        let task = Task { @MainActor [weak self] in
            await IntentGroup.$current.withValue(group) {
                await previous?.value
                // A serial task cancelled while it waited its turn never starts. Any other
                // runs even when cancelled at once: its first store call throws, and bodies
                // that must end a step (a read counted in flight) get to end it.
                if serially, Task.isCancelled { return }
                do {
                    try await body()
                } catch {
                    if !(error is CancellationError), !Task.isCancelled { onFailure(error) }
                }
            }
            self?.end(id, key: key)
            group.remove(id: id)
        }
        state.withLock { state in
            state.running[id] = task
            if let key { state.keys[key] = id }
            if serially { state.lastSerial = task }
        }
        group.add(task, id: id)
        return Intent(group: group, task: task)
    }

    /// Starts `work` as a tracked task that begins off the main actor (on the global
    /// executor, with no turn on the main actor first), then hands its result to `apply` on
    /// the main actor; for store reads, which then never wait for the main actor to start.
    /// `apply` runs whenever `work` returns, even once cancelled (a read that must end a
    /// step ends it); a failure goes to `onFailure` unless the task was cancelled.
    @MainActor @discardableResult
    func start<Value: Sendable>(
        key: String? = nil, _ work: @escaping @Sendable () async throws -> Value,
        then apply: @escaping @MainActor (Value) -> Void, onFailure: @escaping @MainActor (any Error) -> Void
    ) -> Intent {
        let group = IntentGroup.current ?? IntentGroup()
        let (id, replaced) = state.withLock { state in
            state.nextID += 1
            return (state.nextID, key.flatMap { state.keys[$0] }.flatMap { state.running[$0] })
        }
        replaced?.cancel()
        let task = Self.spawn { [weak self] in
            await IntentGroup.$current.withValue(group) {
                do {
                    let value = try await work()
                    await apply(value)
                } catch {
                    if !(error is CancellationError), !Task.isCancelled { await onFailure(error) }
                }
            }
            self?.end(id, key: key)
            group.remove(id: id)
        }
        state.withLock { state in
            state.running[id] = task
            if let key { state.keys[key] = id }
        }
        group.add(task, id: id)
        return Intent(group: group, task: task)
    }

    /// A task of `operation`, started from no actor: it runs on the global executor.
    private static func spawn(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task { await operation() }
    }

    /// Runs `body` now, as one intent: the tasks it starts belong to the intent returned
    /// (or to the intent running now, when called from inside one).
    @MainActor
    func intent(_ body: () -> Void) -> Intent {
        let group = IntentGroup.current ?? IntentGroup()
        IntentGroup.$current.withValue(group, operation: body)
        return Intent(group: group, task: nil)
    }

    /// Cancels every running task.
    func cancelAll() {
        for task in state.withLock({ Array($0.running.values) }) { task.cancel() }
    }

    private func end(_ id: UInt64, key: String?) {
        state.withLock { state in
            state.running[id] = nil
            if let key, state.keys[key] == id { state.keys[key] = nil }
        }
    }
}

extension PropertyProtocol {
    /// `observeOnMainActor(during:_:)`, outside any intent: the work a change starts is work
    /// of its own, not part of the intent that began observing (whose `finished()` would
    /// otherwise wait for changes made long after it).
    func observeOutsideIntents(
        during lifetime: Lifetime, _ handler: @escaping @MainActor @Sendable (Value) -> Void
    ) -> Observation {
        IntentGroup.$current.withValue(nil) { observeOnMainActor(during: lifetime, handler) }
    }
}
