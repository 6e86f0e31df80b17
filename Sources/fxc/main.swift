import FX
print("fxc")
