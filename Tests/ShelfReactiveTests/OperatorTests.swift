import ShelfReactive
import Testing

@Suite("Property operators")
struct OperatorTests {
    let token = Lifetime.Token()

    @Test func mapTransformsEveryValue() {
        let source = MutableProperty(2)
        let seen = Recorder<String>()
        source.map { "#\($0)" }.observe(during: token.lifetime, seen.handler)
        source.value = 3
        #expect(seen.values == ["#2", "#3"])
    }

    @Test func skipRepeatsDropsEqualNeighbours() {
        let source = MutableProperty(1)
        let seen = Recorder<Int>()
        let changes = Recorder<Int>()
        let distinct = source.skipRepeats()
        distinct.observe(during: token.lifetime, seen.handler)
        distinct.changes.observe(during: token.lifetime, changes.handler)
        for value in [1, 1, 2, 2, 2, 1, 3, 3] { source.value = value }
        #expect(seen.values == [1, 2, 1, 3])
        #expect(changes.values == [2, 1, 3])
    }

    @Test func skipRepeatsByAPredicate() {
        let source = MutableProperty("a")
        let seen = Recorder<String>()
        source.skipRepeats { $0.lowercased() == $1.lowercased() }.observe(during: token.lifetime, seen.handler)
        for value in ["A", "b", "B", "a"] { source.value = value }
        #expect(seen.values == ["a", "b", "a"])
    }

    @Test func combineLatestOfTwoAndThree() {
        let a = MutableProperty(1)
        let b = MutableProperty("x")
        let c = MutableProperty(true)
        let pairs = Recorder<String>()
        let triples = Recorder<String>()
        combineLatest(a, b).observe(during: token.lifetime) { pairs.append("\($0)\($1)") }
        combineLatest(a, b, c).observe(during: token.lifetime) { triples.append("\($0)\($1)\($2)") }
        a.value = 2
        b.value = "y"
        c.value = false
        #expect(pairs.values == ["1x", "2x", "2y"])
        #expect(triples.values == ["1xtrue", "2xtrue", "2ytrue", "2yfalse"])
        #expect(combineLatest(a, b).value == (2, "y"))
    }

    @Test func combineLatestEndsWhenBothSourcesEnd() async {
        var a: MutableProperty<Int>? = MutableProperty(1)
        var b: MutableProperty<Int>? = MutableProperty(2)
        let combined = combineLatest(a!, b!)
        let task = Task { () -> [Int] in
            var sums: [Int] = []
            for await (x, y) in combined.values { sums.append(x + y) }
            return sums
        }
        try? await Task.sleep(for: .milliseconds(20))
        a = nil
        b?.value = 5
        b = nil
        let sums = await task.value
        #expect(sums.last == 6)
    }

    @Test func flatMapLatestFollowsTheSelectedProperty() {
        let first = MutableProperty("first-0")
        let second = MutableProperty("second-0")
        let selector = MutableProperty(1)
        let seen = Recorder<String>()
        let flattened = selector.flatMapLatest { $0 == 1 ? first.property : second.property }
        flattened.observe(during: token.lifetime, seen.handler)
        first.value = "first-1"
        selector.value = 2
        first.value = "first-2"  // no longer selected: dropped
        second.value = "second-1"
        selector.value = 1
        #expect(seen.values == ["first-0", "first-1", "second-0", "second-1", "first-2"])
        #expect(flattened.value == "first-2")
    }

    @Test func flatMapLatestReleasesTheReplacedInnerProperty() {
        let weakInner = WeakReference<Property<Int>>()
        let selector = MutableProperty(0)
        let flattened = selector.flatMapLatest { value -> Property<Int> in
            let inner = MutableProperty(value).map { $0 * 2 }
            if value == 0 { weakInner.object = inner }
            return inner
        }
        #expect(flattened.value == 0)
        #expect(weakInner.object != nil)
        selector.value = 1
        #expect(flattened.value == 2)
        #expect(weakInner.object == nil)
    }

    @Test func valuesIsAnAsyncSequenceFinishingWithTheSource() async {
        var source: MutableProperty<Int>? = MutableProperty(0)
        let values = source!.values
        let task = Task { () -> [Int] in
            var seen: [Int] = []
            for await value in values { seen.append(value) }
            return seen
        }
        try? await Task.sleep(for: .milliseconds(20))
        source?.value = 1
        try? await Task.sleep(for: .milliseconds(20))
        source = nil
        let seen = await task.value
        #expect(seen.first == 0)
        #expect(seen.last == 1)
    }

    @Test func valuesKeepsOnlyTheNewestForASlowConsumer() async {
        let source = MutableProperty(0)
        var iterator = source.values.makeAsyncIterator()
        for value in 1...100 { source.value = value }
        #expect(await iterator.next() == 100)
    }
}
