import ShelfReactive
import Synchronization
import Testing

@Suite("Property and MutableProperty")
struct PropertyTests {
    @Test func observeGetsTheCurrentValueThenEveryChange() {
        let property = MutableProperty(1)
        let token = Lifetime.Token()
        let seen = Recorder<Int>()
        property.observe(during: token.lifetime, seen.handler)
        property.value = 2
        property.value = 2
        property.value = 3
        #expect(seen.values == [1, 2, 2, 3], "every set is delivered, repeats included")
        #expect(property.value == 3)
    }

    @Test func changesSkipTheCurrentValue() {
        let property = MutableProperty("a")
        let token = Lifetime.Token()
        let seen = Recorder<String>()
        property.changes.observe(during: token.lifetime, seen.handler)
        property.value = "b"
        #expect(seen.values == ["b"])
    }

    @Test func endingTheLifetimeEndsTheObservation() {
        let property = MutableProperty(0)
        var token: Lifetime.Token? = Lifetime.Token()
        let seen = Recorder<Int>()
        property.observe(during: token!.lifetime, seen.handler)
        property.value = 1
        token = nil
        property.value = 2
        #expect(seen.values == [0, 1])
    }

    @Test func anEndedLifetimeObservesNothing() {
        let property = MutableProperty(0)
        let token = Lifetime.Token()
        token.end()
        let seen = Recorder<Int>()
        let observation = property.observe(during: token.lifetime, seen.handler)
        property.value = 1
        #expect(seen.values == [])
        #expect(observation.isCancelled)
    }

    @Test func cancellingEndsTheObservation() {
        let property = MutableProperty(0)
        let seen = Recorder<Int>()
        let observation = property.observe(during: .never, seen.handler)
        property.value = 1
        observation.cancel()
        property.value = 2
        #expect(seen.values == [0, 1])
        #expect(observation.isCancelled)
    }

    @Test func releasingTheSourceEndsObservationsAndFreesTheObserver() {
        weak var weakCanary: Canary?
        let token = Lifetime.Token()
        var property: MutableProperty<Int>? = MutableProperty(0)
        let readOnly = property!.property
        do {
            let canary = Canary()
            weakCanary = canary
            readOnly.observe(during: token.lifetime) { _ in _ = canary }
        }
        #expect(weakCanary != nil, "the observation holds its handler")
        property = nil
        #expect(weakCanary == nil, "the source went away: the observation ended and released its handler")
        #expect(readOnly.value == 0, "a read-only view keeps the last value")
    }

    @Test func lifetimeEndReleasesHandlerAndDerivedChain() {
        weak var weakCanary: Canary?
        weak var weakChainCanary: Canary?
        let source = MutableProperty(1)
        var token: Lifetime.Token? = Lifetime.Token()
        let seen = Recorder<Int>()
        do {
            let canary = Canary()
            let chainCanary = Canary()
            weakCanary = canary
            weakChainCanary = chainCanary
            // The mapped property is not kept by the test: the observation keeps the chain.
            source.map { value in
                _ = chainCanary
                return value * 10
            }
            .observe(during: token!.lifetime) { value in
                _ = canary
                seen.append(value)
            }
        }
        #expect(weakChainCanary != nil, "an observation keeps its derived chain alive")
        source.value = 2
        #expect(seen.values == [10, 20])
        token = nil
        #expect(weakCanary == nil)
        #expect(weakChainCanary == nil, "no retain cycle keeps the derived chain once unobserved")
        source.value = 3
        #expect(seen.values == [10, 20])
    }

    @Test func anUnobservedDerivedPropertyIsFreed() {
        weak var weakMapped: Property<String>?
        let source = MutableProperty(1)
        do {
            let mapped = source.map { "\($0)" }
            weakMapped = mapped
            #expect(mapped.value == "1")
            source.value = 2
            #expect(mapped.value == "2")
        }
        #expect(weakMapped == nil)
    }

    @Test func aSetFromInsideAnObserverIsQueuedInOrder() {
        let property = MutableProperty(0)
        let token = Lifetime.Token()
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        let depth = Mutex((current: 0, deepest: 0))
        property.observe(during: token.lifetime) { value in
            depth.withLock {
                $0.current += 1
                $0.deepest = max($0.deepest, $0.current)
            }
            first.append(value)
            // Count up to 100 by setting from inside the handler.
            if value < 100 { property.value = value + 1 }
            depth.withLock { $0.current -= 1 }
        }
        property.observe(during: token.lifetime, second.handler)
        // Both observers see the same values in the same order.
        #expect(first.values == Array(0...100))
        #expect(second.values == [100] || second.values.last == 100)
        property.value = 0
        #expect(first.values.suffix(101) == ArraySlice(0...100))
        #expect(second.values.suffix(101) == ArraySlice(0...100))
        #expect(depth.withLock { $0.deepest } == 1, "a set from a handler never recurses")
    }

    @Test func constantPropertyNeverChanges() {
        let constant = Property(value: 7)
        let seen = Recorder<Int>()
        constant.observe(during: .never, seen.handler)
        #expect(seen.values == [7])
        #expect(constant.value == 7)
    }

    @Test func modifyDeliversOnlyWhenChanged() {
        let property = MutableProperty(1)
        let seen = Recorder<Int>()
        let token = Lifetime.Token()
        property.observe(during: token.lifetime, seen.handler)
        property.modify { _ in false }
        property.modify {
            $0 += 1
            return true
        }
        #expect(seen.values == [1, 2])
    }
}
