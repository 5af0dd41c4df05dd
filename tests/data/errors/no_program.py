# just a helper module
import os

print(os.getcwd())
