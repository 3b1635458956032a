import Observation
import ShelfReactive
import Testing

/// Waits on the main actor until `condition` holds.
@MainActor
private func settleOnMain(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
    return condition()
}

@MainActor
@Suite("ObservableProperty: a Property seen by Swift's Observation")
struct ObservablePropertyTests {
    @Test func swiftObservationSeesEveryChange() async throws {
        let source = MutableProperty(1)
        let observed = ObservableProperty(source)
        #expect(observed.value == 1)
        let changed = Locked(0)
        withObservationTracking {
            _ = observed.value
        } onChange: {
            changed.withLock { $0 += 1 }
        }
        source.value = 2
        #expect(await settleOnMain { observed.value == 2 })
        #expect(changed.value == 1, "withObservationTracking's onChange ran for the change")

        observed.stop()
        source.value = 3
        try await Task.sleep(for: .milliseconds(20))
        #expect(observed.value == 2, "a stopped adapter keeps its last value")
    }

    @Test func theAdapterDoesNotKeepItselfAlive() async throws {
        let source = MutableProperty(1)
        weak var weakObserved: ObservableProperty<Int>?
        do {
            let observed = ObservableProperty(source)
            weakObserved = observed
            source.value = 2
        }
        #expect(weakObserved == nil)
        source.value = 3
    }
}
