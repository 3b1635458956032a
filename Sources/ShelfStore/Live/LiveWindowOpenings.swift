internal import Synchronization

/// The first reads of live windows under way, by key, so that callers opening the same key at
/// the same moment share one read instead of each reading the window and all but one throwing
/// theirs away (`LiveWindowRegistry.insert` keeps the first).
///
/// One caller reads (`claim` answers `.read`); the others `wait` for its outcome. A reader
/// that fails hands its error to the waiters, except a cancellation, which is its own task's
/// business: the waiters are then told to try again (one of them reads). A waiter whose task is
/// cancelled stops waiting at once.
package final class LiveWindowOpenings: Sendable {
    package init() {}

    /// What `claim` answers.
    package enum Claim {
        /// No read of the key is under way: the caller reads, then calls `finish`.
        case read
        /// A read of the key is under way: the caller calls `wait`.
        case wait
    }

    /// What a waiter gets.
    package enum Outcome: Sendable {
        case entry(LiveWindowEntry)
        /// The read was cancelled (or ended before the waiter was registered): look again.
        case retry
    }

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Outcome, any Error>
    }

    private struct State {
        var reading: [LiveWindowKey: [Waiter]] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// `key`'s entry in `registry`, or, when there is none, the one `read` makes: one caller
    /// reads a key at a time, and those opening it meanwhile get its outcome. `check` runs
    /// before each look (a backend's refusal once it has failed for good).
    package func entry(
        for key: LiveWindowKey, in registry: LiveWindowRegistry, check: () throws -> Void = {},
        read: () async throws -> LiveWindowEntry
    ) async throws -> LiveWindowEntry {
        while true {
            try check()
            if let existing = registry.entry(for: key) { return existing }
            switch claim(key) {
            case .read:
                do {
                    let entry = try await read()
                    finish(key, .success(entry))
                    return entry
                } catch {
                    // A read interrupted because this task was cancelled says nothing about the
                    // window (the error may be translated into a `StoreError` on the way): the
                    // waiters read again.
                    finish(key, .failure(Task.isCancelled ? CancellationError() : error))
                    throw error
                }
            case .wait:
                switch try await wait(for: key) {
                case .entry(let entry): return entry
                case .retry: continue
                }
            }
        }
    }

    /// Whether the caller reads `key`'s first window or waits for the read under way.
    package func claim(_ key: LiveWindowKey) -> Claim {
        state.withLock { state in
            if state.reading[key] != nil { return .wait }
            state.reading[key] = []
            return .read
        }
    }

    /// Ends the read of `key` that `claim` gave the caller: its waiters get `result`'s entry or
    /// error (a `CancellationError` tells them to retry).
    package func finish(_ key: LiveWindowKey, _ result: Result<LiveWindowEntry, any Error>) {
        let waiters = state.withLock { $0.reading.removeValue(forKey: key) } ?? []
        for waiter in waiters {
            switch result {
            case .success(let entry): waiter.continuation.resume(returning: .entry(entry))
            case .failure(let error) where error is CancellationError: waiter.continuation.resume(returning: .retry)
            case .failure(let error): waiter.continuation.resume(throwing: error)
            }
        }
    }

    /// The outcome of the read of `key` under way (`.retry` when it has ended already).
    /// - Throws: the reader's error, or `CancellationError` when the calling task is cancelled.
    package func wait(for key: LiveWindowKey) async throws -> Outcome {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let registered = state.withLock { state -> Bool in
                    guard state.reading[key] != nil else { return false }
                    state.reading[key]?.append(Waiter(id: id, continuation: continuation))
                    return true
                }
                if !registered { continuation.resume(returning: .retry) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.reading[key]?.firstIndex(where: { $0.id == id }) else { return nil }
                return state.reading[key]?.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
