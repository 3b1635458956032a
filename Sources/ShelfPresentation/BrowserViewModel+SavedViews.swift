internal import Foundation
public import ShelfStore

extension BrowserViewModel {
    /// The open saved view's name while the list shows exactly its query (same text, sort and
    /// owner, no status filter); nil when no view is open or the query has changed since.
    public var openViewName: String? {
        guard let openView, Self.shows(openView, list.query) else { return nil }
        return openView.name
    }

    /// What to say about the open view while it shows: that its sort field is unknown to
    /// this shelf and the default order is used instead; nil otherwise.
    public var openViewNote: String? {
        openViewName == nil ? nil : openView?.fallbackSortNote
    }

    /// A picker over every saved view, live, with the open view selected first.
    public func makeSavedViewList(keys: KeyNames = .defaults) -> SavedViewListViewModel {
        SavedViewListViewModel(store: store, selecting: openViewName, keys: keys)
    }

    /// A prompt to save the list's search and sort, prefilled with the open view's name. The
    /// status filter (`f`) is saved as part of the text (`status:open`), so the view shows what
    /// the list showed (hostile round 6: it was left out, and the view showed every item).
    public func makeSaveViewPrompt() -> SaveViewPromptViewModel {
        SaveViewPromptViewModel(store: store, query: Self.savable(list.query), name: openViewName ?? "")
    }

    /// `query` with its status filter written into its text, and no status filter.
    nonisolated static func savable(_ query: ItemQuery) -> ItemQuery {
        guard let status = query.status else { return query }
        var savable = query
        savable.status = nil
        let term = "status:\(status.rawValue)"
        let trimmed = query.text.trimmingCharacters(in: .whitespaces)
        savable.text = trimmed.isEmpty ? term : trimmed + " " + term
        return savable
    }

    /// Shows `view` in the list: its search text, sort and owner, with no status filter,
    /// through the list's own intents. A sort field this shelf does not know falls back to
    /// newest first (`openViewNote` says so).
    public func open(_ view: SavedView) {
        let query = view.itemQuery
        openView = view
        list.filter(status: nil)
        list.filter(owner: query.owner)
        list.sort(by: query.sortField, query.sortDirection)
        list.search(query.text)
    }

    /// Records `view`, just saved from the list's query, as the open view (shown as saved:
    /// a status filter moves into the search text).
    public func didSave(_ view: SavedView) {
        if list.query.status != nil { return open(view) }
        openView = view
    }

    /// True when `query` is the query `view` stands for.
    nonisolated static func shows(_ view: SavedView, _ query: ItemQuery) -> Bool {
        let expected = view.itemQuery
        return query.status == nil && query.owner == expected.owner && query.text == expected.text
            && query.sortField == expected.sortField && query.sortDirection == expected.sortDirection
    }
}
