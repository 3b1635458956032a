internal import Foundation
internal import Synchronization

/// Runs an import's staging writes on a thread of their own, in order, while the import's
/// thread reads and checks the next rows: on two cores, parsing and SQLite's inserts overlap.
///
/// At most `depth` batches wait or run at once (`submit` blocks beyond that), so memory stays
/// at a few batches whatever the input's size. The first failure is kept; later batches are
/// skipped, and `submit` and `drain` throw it.
final class StagingPipe: Sendable {
    private let queue = DispatchQueue(label: "shelf.import.staging")
    private let slots: DispatchSemaphore
    private let failure = Mutex<(any Error)?>(nil)

    init(depth: Int = 2) {
        slots = DispatchSemaphore(value: max(1, depth))
    }

    /// Queues `work`; throws the failure of an earlier batch instead, if one failed.
    func submit(_ work: @escaping @Sendable () throws -> Void) throws {
        try rethrow()
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            guard failure.withLock({ $0 == nil }) else { return }
            do {
                try work()
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
        }
    }

    /// Waits until every queued batch is written; throws the first failure.
    func drain() throws {
        queue.sync {}
        try rethrow()
    }

    private func rethrow() throws {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
