import Dispatch
import ShelfReactive
import Synchronization
import Testing

/// `observe(during:on:)`: the caller picks where values arrive.
@Suite("Property schedulers")
struct SchedulerTests {
    @Test func aQueueGetsEveryValueInOrderOnThatQueue() async throws {
        let property = MutableProperty(0)
        let queue = DispatchQueue(label: "scheduler-test")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let seen = Mutex<[Int]>([])
        let offQueue = Atomic<Int>(0)
        let token = Lifetime.Token()
        property.observe(during: token.lifetime, on: .queue(queue)) { value in
            if DispatchQueue.getSpecific(key: key) != 7 { offQueue.add(1, ordering: .relaxed) }
            seen.withLock { $0.append(value) }
        }
        for value in 1...100 { property.value = value }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(seen.withLock { $0 } == Array(0...100))
        #expect(offQueue.load(ordering: .relaxed) == 0)
    }

    @Test func nothingArrivesAfterTheObservationEnds() async throws {
        let property = MutableProperty(0)
        let queue = DispatchQueue(label: "scheduler-test")
        let seen = Mutex<[Int]>([])
        let token = Lifetime.Token()
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }  // values queue up behind this
        property.observe(during: token.lifetime, on: .queue(queue)) { value in seen.withLock { $0.append(value) } }
        property.value = 1
        token.end()
        gate.signal()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(seen.withLock { $0 } == [])
    }

    @Test func theMainActorGetsValuesOnTheMainActor() async throws {
        let property = MutableProperty(0)
        let token = Lifetime.Token()
        let last = Mutex(-1)
        property.observe(during: token.lifetime, on: .mainActor) { value in
            MainActor.assertIsolated()
            last.withLock { $0 = value }
        }
        property.value = 5
        // The main actor is shared with every main-actor test of a full run: be patient.
        let deadline = ContinuousClock.now + .seconds(300)
        while last.withLock({ $0 }) != 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(last.withLock { $0 } == 5)
    }
}
