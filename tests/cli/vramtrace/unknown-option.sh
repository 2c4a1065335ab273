vramtrace --frobnicate report
