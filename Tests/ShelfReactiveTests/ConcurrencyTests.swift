import Foundation
import ShelfReactive
import Testing

@Suite("Property under concurrency")
struct ConcurrencyTests {
    @Test func manyThreadsSettingAndObserving() async {
        let property = MutableProperty((thread: -1, count: 0))
        let token = Lifetime.Token()
        let threads = 8
        let setsPerThread = 2_000
        let overlapping = Locked(false)
        let busy = Locked(0)
        // Every observer checks that values from one thread arrive in the order set.
        let observers = (0..<4).map { _ in Locked([Int](repeating: 0, count: threads)) }
        for last in observers {
            property.observe(during: token.lifetime) { value in
                if busy.withLock({
                    $0 += 1
                    return $0
                }) > 1 {
                    overlapping.withLock { $0 = true }
                }
                if value.thread >= 0 {
                    let previous = last.withLock { counts in
                        let previous = counts[value.thread]
                        counts[value.thread] = value.count
                        return previous
                    }
                    #expect(value.count > previous, "out of order for thread \(value.thread)")
                }
                busy.withLock { $0 -= 1 }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    for count in 1...setsPerThread { property.value = (thread, count) }
                }
                // Observers come and go while values fly.
                group.addTask {
                    for _ in 0..<200 {
                        let extra = Lifetime.Token()
                        property.observe(during: extra.lifetime) { _ in }
                    }
                }
            }
        }
        #expect(!overlapping.value, "handlers of one property never overlap")
        for last in observers {
            #expect(last.value == [Int](repeating: setsPerThread, count: threads))
        }
    }

    @Test func observeOnAnActorDeliversEveryValueInOrder() async throws {
        actor Collector {
            var values: [Int] = []
            func add(_ value: Int) { values.append(value) }
        }
        let collector = Collector()
        let property = MutableProperty(0)
        let token = Lifetime.Token()
        property.observe(during: token.lifetime, on: collector) { collector, value in collector.add(value) }
        for value in 1...50 { property.value = value }
        while await collector.values.count < 51 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(await collector.values == Array(0...50))
    }

    @Test @MainActor func observeOnMainActorDeliversOnTheMainActor() async throws {
        let property = MutableProperty(0)
        let token = Lifetime.Token()
        var seen: [Int] = []
        property.observeOnMainActor(during: token.lifetime) { value in
            MainActor.assertIsolated()
            seen.append(value)
        }
        Thread.detachNewThread { property.value = 1 }
        while seen.count < 2 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(seen == [0, 1])
    }
}
