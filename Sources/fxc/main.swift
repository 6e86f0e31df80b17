print("fxc")
