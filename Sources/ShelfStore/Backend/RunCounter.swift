internal import Synchronization

/// A count shared with the closures of live queries.
package final class RunCounter: Sendable {
    private let count = Atomic<Int>(0)

    package init() {}

    /// The count so far.
    package var value: Int { count.load(ordering: .relaxed) }

    /// Adds one.
    package func increment() {
        count.add(1, ordering: .relaxed)
    }
}
