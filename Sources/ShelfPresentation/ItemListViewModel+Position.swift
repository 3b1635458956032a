internal import ShelfStore

/// Where the list's window starts: counted by the store when a read could not tell, and again
/// when the count moves, so "n/N" stays true and items arriving above the rows held count in
/// "↑ N new".
extension ItemListViewModel {

    /// When the settled window does not know where it starts (it was read around the
    /// selection), asks the store how many items come before it, so "n/N" shows again.
    func readPositionIfUnknown() {
        guard window.hasWindow, window.offset == nil, !window.isRefreshing, let first = window.items.first,
            positionReadFor != window.requestNumber
        else { return }
        let (store, query, number) = (self.store, window.query, window.requestNumber)
        positionReadFor = number
        tasks.start(
            { try await store.items.count(matching: query, before: ItemCursor(first)) },
            then: { [weak self] count in self?.setPosition(count, first: first.id, number: number) },
            onFailure: { [weak self] error in
                self?.report("Could not count the items before these (the position shows as unknown)", error, number)
            })
    }

    /// Counts the items before the window again, when it does not start at the top, so items
    /// that arrived above the rows held count in "↑ N new".
    func recountBeforeWindow(_ number: Int) {
        guard window.anchor != nil, window.offset != nil, let first = window.items.first else { return }
        let (store, query) = (self.store, window.query)
        tasks.start(
            { try await store.items.count(matching: query, before: ItemCursor(first)) },
            then: { [weak self] count in
                self?.window.receive(liveCountBefore: count, first: first.id, for: number)
                self?.publish()
            },
            onFailure: { [weak self] error in
                self?.report("Could not count the items before these (new items above may not show)", error, number)
            })
    }

    private func setPosition(_ count: Int, first: Item.ID, number: Int) {
        window.receive(countBefore: count, first: first, for: number)
        publish()
    }
}
