import Foundation
import ShelfPresentation
import ShelfReactive
import ShelfStore
import ShelfTerminal
import ShelfTerminalTesting
import Synchronization
import Testing

@testable import ShelfBrowser

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let date: Mutex<Date>
    init(_ date: Date) { self.date = Mutex(date) }
    var now: @Sendable () -> Date { { [self] in date.withLock { $0 } } }
    func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

/// "26m ago" turns into "27m ago" as time passes, and nothing is published (or drawn) while
/// the words stay the same (issue 26).
@MainActor
@Suite("Relative times")
struct RelativeTimeTests {
    @Test func timesAreFormattedAgainOnlyWhenTheirWordsChange() async throws {
        let (store, _) = try await makeStore(items: 1)  // item 1 updated at start + 1 h
        let clock = TestClock(start.addingTimeInterval(3600 + 59 * 60 + 30))  // 59m 30s later
        let list = ItemListViewModel(store: store, query: ItemQuery(), now: clock.now)
        list.load()
        let token = Lifetime.Token()
        let changes = Mutex(0)
        list.state.changes.observe(during: token.lifetime) { _ in changes.withLock { $0 += 1 } }
        let deadline = ContinuousClock.now + .seconds(120)
        while list.state.value.value?.rows.first?.updated != "59m ago", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(list.state.value.value?.rows.first?.updated == "59m ago")
        let before = changes.withLock { $0 }
        clock.advance(by: 10)  // 59m 40s: the same words
        list.refreshRelativeTimes()
        #expect(changes.withLock { $0 } == before, "no new state while the words stay")
        clock.advance(by: 30)  // 1h 0m 10s
        list.refreshRelativeTimes()
        #expect(changes.withLock { $0 } == before + 1)
        #expect(list.state.value.value?.rows.first?.updated == "1h ago")
    }

    @Test func theBrowserFormatsTimesAgainAsTimePasses() async throws {
        let (store, _) = try await makeStore(items: 1)
        let clock = TestClock(start.addingTimeInterval(3600 + 59 * 60 + 30))
        let controller = BrowserController(viewModel: BrowserViewModel(store: store, now: clock.now))
        controller.timeRefreshInterval = .milliseconds(10)
        let screen = HeadlessScreen(rootController: controller, size: Size(width: 100, height: 8))
        #expect(await screen.waitUntil { $0.contains("59m ago") })
        clock.advance(by: 60)
        #expect(await screen.waitUntil { $0.contains("1h ago") }, "\(screen.text)")
        screen.close()
    }
}
