import WSCLI

App.main()
