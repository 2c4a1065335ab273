vramtrace version --long
