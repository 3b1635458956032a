public import ArgumentParser
public import ShelfStore

// `--sort created|updated|priority|title` on the command line.
extension ItemQuery.SortField: ExpressibleByArgument {}
