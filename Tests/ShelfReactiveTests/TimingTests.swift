import ShelfReactive
import Synchronization
import Testing

/// A clock that moves only when a test advances it: sleepers wake when their deadline is
/// reached, so timing operators are tested without waiting and without timing bounds.
final class TestClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [(deadline: Instant, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// How many tasks are asleep on this clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let due = state.withLock { state -> Bool in
                if deadline <= state.now { return true }
                state.sleepers.append((deadline, continuation))
                return false
            }
            if due { continuation.resume() }
        }
    }

    /// Moves the clock on by `duration` and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.map(\.continuation)
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for continuation in due { continuation.resume() }
    }
}

/// Waits until `condition` holds (tasks woken by the test clock run on other threads).
private func settle(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
    return condition()
}

@Suite("throttle and debounce, on a test clock")
struct TimingTests {
    @Test func throttleDeliversTheFirstChangeAtOnceThenTheLatestPerInterval() async throws {
        let clock = TestClock()
        let source = MutableProperty(0)
        let throttled = source.throttle(for: .milliseconds(100), clock: clock)
        let seen = Recorder<Int>()
        let token = Lifetime.Token()
        throttled.changes.observe(during: token.lifetime, seen.handler)

        source.value = 1
        #expect(seen.values == [1], "the first change goes through at once")
        source.value = 2
        source.value = 3
        #expect(seen.values == [1], "changes inside the interval are held")
        #expect(await settle { clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(100))
        #expect(await settle { seen.values == [1, 3] }, "the latest held value at the end of the interval")
        // A new interval started with that delivery; a change in it is held until it ends.
        #expect(await settle { clock.sleeperCount == 1 })
        source.value = 4
        clock.advance(by: .milliseconds(50))
        #expect(seen.values == [1, 3])
        clock.advance(by: .milliseconds(50))
        #expect(await settle { seen.values == [1, 3, 4] })
        // A quiet interval closes the window; the next change goes through without another
        // advance of the clock.
        #expect(await settle { clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(100))
        #expect(await settle { clock.sleeperCount == 0 })
        source.value = 5
        #expect(await settle { seen.values == [1, 3, 4, 5] })
        withExtendedLifetime(token) {}
    }

    @Test func aThousandChangesInOneIntervalDeliverTwo() async throws {
        let clock = TestClock()
        let source = MutableProperty(0)
        let throttled = source.throttle(for: .seconds(1), clock: clock)
        let seen = Recorder<Int>()
        let token = Lifetime.Token()
        throttled.changes.observe(during: token.lifetime, seen.handler)
        for value in 1...1000 { source.value = value }
        #expect(await settle { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(1))
        #expect(await settle { seen.values == [1, 1000] })
        #expect(throttled.value == 1000)
        withExtendedLifetime(token) {}
    }

    @Test func debounceWaitsForQuiet() async throws {
        let clock = TestClock()
        let source = MutableProperty("")
        let debounced = source.debounce(for: .milliseconds(300), clock: clock)
        let seen = Recorder<String>()
        let token = Lifetime.Token()
        debounced.changes.observe(during: token.lifetime, seen.handler)

        source.value = "m"
        #expect(await settle { clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(200))
        source.value = "mo"
        #expect(await settle { clock.sleeperCount == 1 }, "the first wait woke and found itself outdated")
        clock.advance(by: .milliseconds(200))
        #expect(seen.values.isEmpty, "300 ms have not passed since the last change")
        source.value = "moth"
        #expect(await settle { clock.sleeperCount == 2 })
        clock.advance(by: .milliseconds(300))
        #expect(await settle { seen.values == ["moth"] })
        #expect(debounced.value == "moth")
        withExtendedLifetime(token) {}
    }

    @Test func aHeldValueIsDeliveredWhenTheSourceEnds() async throws {
        let clock = TestClock()
        var source: MutableProperty<Int>? = MutableProperty(0)
        let throttled = try #require(source).throttle(for: .seconds(1), clock: clock)
        let debounced = try #require(source).debounce(for: .seconds(1), clock: clock)
        source?.value = 1
        source?.value = 2
        source = nil
        #expect(throttled.value == 2)
        #expect(debounced.value == 2)
    }
}
