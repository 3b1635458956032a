internal import ShelfStore

/// Where the window starts in the whole list, when a read could not tell, and how that moves
/// as items come and go above the rows held.
extension ItemListWindow {
    /// The position of the window's first row, counted by the store after a read that could
    /// not know it (around the selection, after a query change): kept only while the window
    /// still starts with `first` and no newer request was made.
    mutating func receive(countBefore count: Int, first: Item.ID, for number: Int) {
        guard number == requestNumber, offset == nil, items.first?.id == first else { return }
        offset = count
        updateReachesEnd()
    }

    /// The number of items before the window's first row, counted again after a live change
    /// (items may have arrived or gone above the rows held): what it grew by counts as new
    /// above the viewport; the position follows.
    mutating func receive(liveCountBefore count: Int, first: Item.ID, for number: Int) {
        guard number == requestNumber, let known = offset, items.first?.id == first, anchor != nil else { return }
        if count > known {
            newBeforeWindow += count - known
        } else {
            newBeforeWindow = max(0, newBeforeWindow - (known - count))
        }
        offset = count
        updateReachesEnd()
    }
}
