import Foundation
import ShelfPresentation
import ShelfStore
import ShelfTerminal
import ShelfTerminalTesting
import Testing

@testable import ShelfBrowser

@MainActor
@Suite("Item list screens")
struct ItemListScreenTests {
    /// The list's rows start on line 2, under the search field and the header.
    private static let firstRow = 2

    @Test func theSelectedRowStaysOnItsLineAcrossSortFilterSearchAndEsc() async throws {
        let (store, _) = try await makeStore(items: 60)
        let screen = browser(store, width: 120, height: 12)
        #expect(await screen.waitUntil { $0.contains("60 items") })
        for _ in 0..<30 { screen.send(.character("j")) }
        for _ in 0..<4 { screen.send(.character("k")) }
        #expect(await screen.waitUntil { $0.contains("27/60 · 60 items · newest first") && $0.contains("Item #34") })
        #expect(screen.lines[Self.firstRow + 4].contains("Item 34"))

        screen.send(.character("S"))
        #expect(await screen.waitUntil { $0.contains("34/60 · 60 items · oldest first") })
        #expect(screen.lines[Self.firstRow + 4].contains("Item 34"))
        #expect(screen.lines[Self.firstRow].contains("Item 30"))

        screen.send(.character("f"))
        #expect(await screen.waitUntil { $0.contains("28/48 · 48 items · open · oldest first") })
        #expect(screen.lines[Self.firstRow + 4].contains("Item 34"))

        screen.type("/Item 3")
        #expect(await screen.waitUntil { $0.contains("5/9 · 9 items · “Item 3” · open · oldest first") })
        #expect(screen.lines[Self.firstRow + 4].contains("Item 34"))
        screen.send(KeyEvent(.escape))  // leaves the search field, clearing it
        screen.send(KeyEvent(.escape))  // clears the filter
        #expect(await screen.waitUntil { $0.contains("34/60 · 60 items · oldest first") })
        #expect(screen.lines[Self.firstRow + 4].contains("Item 34"))
        #expect(screen.text.contains("Item #34"))
        // Near the end of the list, the rows below cannot fill the screen: the row moves down.
        screen.send(.character("G"))
        for _ in 0..<4 { screen.send(.character("k")) }
        #expect(await screen.waitUntil { $0.contains("56/60 · 60 items · oldest first") })
        screen.send(.character("f"))
        #expect(await screen.waitUntil { $0.contains("45/48 · 48 items · open · oldest first") })
        #expect(screen.lines[Self.firstRow + 5].contains("Item 56"))
    }

    @Test func itemsArrivingAboveShowAsNewAndGJumpsToThem() async throws {
        let (store, users) = try await makeStore(items: 30)
        let screen = browser(store, width: 120, height: 12)
        #expect(await screen.waitUntil { $0.contains("1/30 · 30 items") })
        for n in 1...3 {
            try await store.items.insert(
                NewItem(
                    userID: users[0].id, title: "Arrival \(n)",
                    createdAt: start.addingTimeInterval(100 * 3600 + Double(n))))
        }
        #expect(await screen.waitUntil { $0.contains("↑ 3 new · g") })
        // Nothing moved: item 30 is still the first row, and selected.
        #expect(screen.lines[0].hasPrefix("/search (press /)"))
        #expect(screen.lines[0].contains("↑ 3 new · g"))
        #expect(screen.lines[Self.firstRow].contains("Item 30"))
        #expect(screen.text.contains("4/33 · 33 items"))
        screen.send(.character("g"))
        #expect(await screen.waitUntil { $0.contains("1/33 · 33 items") })
        #expect(!screen.text.contains("new · g"))
        #expect(screen.lines[Self.firstRow].contains("Arrival 3"))
    }

    @Test func aClickOnAColumnHeaderSortsByItAndAgainReverses() async throws {
        let (store, _) = try await makeStore(items: 12)
        let screen = browser(store, width: 120, height: 12)
        #expect(await screen.waitUntil { $0.contains("12 items · newest first") })
        // The detail pane has read its item (under load it can still say "Loading…").
        #expect(await screen.waitUntil { $0.contains("Item #12") })
        let header = screen.lines[1]
        func click(_ title: String) throws {
            let range = try #require(header.range(of: title))
            let x = header.distance(from: header.startIndex, to: range.lowerBound)
            _ = screen.send(.mouse(MouseEvent(.press(button: 0), at: Point(x: x + 1, y: 1))))
        }
        try click("Title")
        #expect(await screen.waitUntil { $0.contains("12 items · title A–Z") })
        #expect(screen.lines[1].contains("Title ▲"))
        #expect(screen.text.contains("Item #12"))  // still selected
        try click("Title")
        #expect(await screen.waitUntil { $0.contains("12 items · title Z–A") })
        #expect(screen.lines[1].contains("Title ▼"))
        #expect(screen.text.contains("Item #12"))
        try click("Owner")
        if ItemQuery.SortField(rawValue: "owner") == nil {
            // No owner sort in the store yet: the click changes nothing.
            #expect(screen.text.contains("12 items · title Z–A"))
        } else {
            #expect(await screen.waitUntil { $0.contains("Owner ▲") })
        }
        // `s` cycles the field, `S` reverses it.
        try click("Updated")
        #expect(await screen.waitUntil { $0.contains("Updated ▼") })
        screen.send(.character("S"))
        #expect(await screen.waitUntil { $0.contains("Updated ▲") })
        screen.send(.character("s"))
        #expect(await screen.waitUntil { $0.contains("Pr▼") })
    }
}
