import Foundation
import ShelfStore
import Testing

@testable import ShelfPresentation

/// The pure parts of saved views in the browser: rows, the picker's state, and when the
/// list still shows the open view.
@Suite("Saved views: mapping")
struct SavedViewMappingTests {
    static func view(
        _ name: String, text: String = "", field: String = "created", direction: ItemQuery.SortDirection = .descending,
        owner: User.ID? = nil, id: Int64 = 1
    ) -> SavedView {
        SavedView(
            id: SavedView.ID(id), name: name, queryText: text, sortFieldName: field, sortDirection: direction,
            owner: owner, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0),
            version: 1)
    }

    @Test func rowsSayTheSortAndQueryInWords() {
        let moths = SavedViewRowViewModel(Self.view("Moths", text: "  moth ", field: "title", direction: .ascending))
        #expect(moths.sort == "title A–Z" && moths.query == "“moth”")
        let all = SavedViewRowViewModel(Self.view("All", field: "relevance"))
        #expect(all.sort == "relevance (unknown)" && all.query == "all items")
    }

    @Test func thePickerIsEmptyWithAHintOrListsTheViewsWithTheSelection() {
        let empty = SavedViewListViewModel.state([], selectedID: nil, message: nil)
        #expect(empty.emptyMessage?.contains("Press V") == true)
        #expect(empty.emptyMessage?.contains("shelf views save NAME --query TEXT") == true)
        // The key in force (hostile round 8: "Press V" with saveView = ["ctrl-v"]).
        let rebound = SavedViewListViewModel.state(
            [], selectedID: nil, message: nil, keys: KeyNames(rebound: ["list.saveView": "Ctrl-V"]))
        #expect(rebound.emptyMessage?.contains("Press Ctrl-V in the list") == true, "\(rebound)")
        let views = [Self.view("A", id: 1), Self.view("B", id: 2)]
        let loaded = SavedViewListViewModel.state(views, selectedID: SavedView.ID(2), message: "note")
        #expect(loaded.value?.rows.map(\.name) == ["A", "B"])
        #expect(loaded.value?.selectedIndex == 1 && loaded.value?.message == "note")
    }

    /// Hostile round 6: `V` with the `f` status filter on saved the text alone, and the view
    /// then showed every item.
    @Test func aStatusFilterIsSavedInTheViewsText() {
        var query = ItemQuery(text: "  moth ", sortField: .title, sortDirection: .ascending)
        query.status = .open
        let savable = BrowserViewModel.savable(query)
        #expect(savable.status == nil && savable.text == "moth status:open")
        #expect(savable.sortField == .title && savable.sortDirection == .ascending)
        query.text = ""
        query.status = .done
        #expect(BrowserViewModel.savable(query).text == "status:done")
        // Saved, the view shows what was saved: its text holds the filter, with no filter beside.
        let view = Self.view("Done", text: "status:done", field: "title", direction: .ascending)
        #expect(BrowserViewModel.shows(view, BrowserViewModel.savable(query)))
        #expect(BrowserViewModel.savable(ItemQuery(text: "moth")).text == "moth")
    }

    @Test func theListShowsAViewOnlyWhileItsQueryIsUnchanged() {
        let ada = User.ID(7)
        let view = Self.view("Ada's moths", text: "moth", field: "priority", owner: ada)
        let query = ItemQuery(owner: ada, text: "moth", sortField: .priority, sortDirection: .descending)
        #expect(BrowserViewModel.shows(view, query))
        var changed = query
        changed.status = .open
        #expect(!BrowserViewModel.shows(view, changed), "a status filter")
        changed = query
        changed.text = "moths"
        #expect(!BrowserViewModel.shows(view, changed), "other text")
        changed = query
        changed.sortDirection = .ascending
        #expect(!BrowserViewModel.shows(view, changed), "another direction")
        changed = query
        changed.owner = nil
        #expect(!BrowserViewModel.shows(view, changed), "all owners")
        // An unknown sort field is shown newest first, and that is the view's query.
        let later = Self.view("Later", text: "x", field: "relevance", direction: .ascending)
        #expect(BrowserViewModel.shows(later, ItemQuery(text: "x")))
    }
}
