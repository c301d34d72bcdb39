import sys
print("not CUDA", sys.argv)
